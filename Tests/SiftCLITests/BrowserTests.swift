import Foundation
import Testing

/// The HTML report and the waterfall SVG, opened in a real browser: headless Chromium (Debian's
/// `chromium`, which `.ci/run` installs when it can). Skipped, with a message, when no Chromium is
/// installed.
@Suite(.serialized, .enabled(if: Browser.path != nil, "no chromium on PATH: the browser checks are skipped (apt-get install chromium)"))
struct BrowserTests {
    /// What the page reports back: its text overlaps, the server lines it shows, and the errors it raised.
    static let probe = """
        <script>
        (function () {
          var out = {overlaps: [], texts: 0, errors: window.__pbsiftErrors || []};
          var leaves = Array.prototype.filter.call(document.querySelectorAll(SELECTOR), function (e) {
            return e.textContent.trim() !== '' && e.getClientRects().length > 0;
          });
          out.texts = leaves.length;
          for (var i = 0; i < leaves.length; i++) {
            for (var j = i + 1; j < leaves.length; j++) {
              if (leaves[i].contains(leaves[j]) || leaves[j].contains(leaves[i])) continue;
              var a = leaves[i].getBoundingClientRect(), b = leaves[j].getBoundingClientRect();
              var w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
              var h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
              if (w > 1 && h > 1) out.overlaps.push(leaves[i].textContent.trim().slice(0, 40) + ' / ' + leaves[j].textContent.trim().slice(0, 40));
            }
          }
          var pre = document.createElementNS(document.documentElement.namespaceURI === 'http://www.w3.org/2000/svg' ? 'http://www.w3.org/1999/xhtml' : document.documentElement.namespaceURI, 'pre');
          pre.setAttribute('id', 'pbsift-probe');
          var mark = 'PBSIFT' + '-PROBE';
          pre.textContent = mark + JSON.stringify(out) + mark;
          document.documentElement.appendChild(pre);
        })();
        </script>
        """

    static let errorHook = """
        <script>window.__pbsiftErrors = []; window.addEventListener('error', function (e) { window.__pbsiftErrors.push(String(e.message)); });
        var __ce = console.error; console.error = function () { window.__pbsiftErrors.push(Array.prototype.join.call(arguments, ' ')); __ce.apply(console, arguments); };</script>
        """

    /// Opens `file` and returns the browser's log lines that are console messages or refusals.
    static func consoleErrors(_ file: URL) throws -> [String] {
        let r = try Browser.run(["--enable-logging=stderr", "--v=0", "--dump-dom", file.absoluteString])
        return r.err.split(separator: "\n").map(String.init).filter {
            ($0.contains("CONSOLE") && !$0.contains(":INFO:")) || $0.contains("Refused to") || $0.contains("Uncaught")
        }
    }

    /// Opens a copy of `page` with the probe in it (the copy drops the page's script-blocking
    /// policy, which would refuse the probe) and returns what the probe found and the DOM.
    static func probe(_ page: String, selector: String, svg: Bool) throws -> (overlaps: [String], texts: Int, errors: [String], dom: String)
    {
        var copy = page.replacingOccurrences(
            of: #"<meta http-equiv="Content-Security-Policy" content="[^"]*">"#, with: "", options: .regularExpression)
        let probe = Self.probe.replacingOccurrences(of: "SELECTOR", with: "'" + selector + "'")
        if svg {
            let cdata = { (s: String) in
                s.replacingOccurrences(of: "<script>", with: "<script><![CDATA[").replacingOccurrences(
                    of: "</script>", with: "]]></script>")
            }
            copy = copy.replacingOccurrences(of: "</svg>", with: cdata(probe) + "</svg>")
        } else {
            copy = copy.replacingOccurrences(of: "<head>", with: "<head>" + Self.errorHook).replacingOccurrences(
                of: "</body>", with: probe + "</body>")
        }
        let dir = try makeTempDir()
        let file = dir.appendingPathComponent(svg ? "probe.svg" : "probe.html")
        try Data(copy.utf8).write(to: file)
        let r = try Browser.run(["--dump-dom", file.absoluteString])
        let parts = r.out.components(separatedBy: "PBSIFT-PROBE").map {
            $0.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
        guard parts.count >= 3, let json = try JSONSerialization.jsonObject(with: Data(parts[1].utf8)) as? [String: Any] else {
            Issue.record("the probe did not report: \(r.err.suffix(600))")
            return ([], 0, [], r.out)
        }
        return (json["overlaps"] as? [String] ?? [], json["texts"] as? Int ?? 0, json["errors"] as? [String] ?? [], r.out)
    }

    @Test func theHTMLReportRendersCleanly() throws {
        let dir = try makeTempDir()
        let html = dir.appendingPathComponent("report.html")
        let r = try Binary.run([
            "report", packageRoot.appendingPathComponent("samples/export-incident.zip").path, "--logs",
            packageRoot.appendingPathComponent("samples/logs").path, "-f", "html", "-o", html.path, "-q"
        ])
        #expect(r.status == 1, "\(r.err)")
        // The page as written: no console error, nothing refused.
        #expect(try Self.consoleErrors(html).isEmpty)
        // The header (title, counts, verdict): no two texts drawn over each other.
        let page = try String(contentsOf: html, encoding: .utf8)
        let p = try Self.probe(page, selector: "h1, h1 + p, ul li b, ul li", svg: false)
        #expect(p.texts >= 5)
        #expect(p.overlaps.isEmpty, "\(p.overlaps)")
        #expect(p.errors.isEmpty, "\(p.errors)")
        // The failed order's server lines are on the page the browser built.
        #expect(p.dom.contains("context deadline exceeded") && p.dom.contains("stripe-sim: upstream timeout after 5000ms"))
    }

    @Test func theWaterfallSVGRendersCleanly() throws {
        let dir = try makeTempDir()
        let svg = dir.appendingPathComponent("waterfall.svg")
        let r = try Binary.run([
            "waterfall", packageRoot.appendingPathComponent("samples/export-incident.zip").path, "-f", "svg", "-o", svg.path, "-q"
        ])
        #expect(r.status == 0, "\(r.err)")
        #expect(try Self.consoleErrors(svg).isEmpty)
        let p = try Self.probe(try String(contentsOf: svg, encoding: .utf8), selector: "text", svg: true)
        #expect(p.texts >= 20)
        #expect(p.overlaps.isEmpty, "\(p.overlaps.prefix(10))")
    }
}

/// Headless Chromium, when installed.
enum Browser {
    static let path: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Runs it headless (no sandbox: CI runs as root) with `args`, for at most 90 seconds.
    static func run(_ args: [String]) throws -> (out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try #require(path))
        let profile = try makeTempDir()
        p.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--user-data-dir=" + profile.path, "--window-size=1280,2000", "--virtual-time-budget=5000"
            ] + args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let deadline = DispatchTime.now() + .seconds(90)
        let group = DispatchGroup()
        let o = Collected(), e = Collected()
        for (pipe, into) in [(out, o), (err, e)] {
            group.enter()
            DispatchQueue.global().async {
                into.data = pipe.fileHandleForReading.readDataToEndOfFile()
                group.leave()
            }
        }
        if group.wait(timeout: deadline) == .timedOut { p.terminate() }
        p.waitUntilExit()
        group.wait()
        return (String(decoding: o.data, as: UTF8.self), String(decoding: e.data, as: UTF8.self))
    }

    /// One stream's bytes, read on its own thread.
    final class Collected: @unchecked Sendable { var data = Data() }
}
