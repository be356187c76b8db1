import Foundation

/// The name of a server log shape: one entry of `LogCatalogue`.
public struct LogFormat: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Only names of the catalogue.
    public init?(rawValue: String) {
        guard LogCatalogue.entry(named: rawValue) != nil else { return nil }
        self.rawValue = rawValue
    }

    init(_ name: String) { rawValue = name }

    public var description: String { rawValue }

    /// The platform's JSON lines (`palbase logs`).
    public static let platform = LogFormat("palbase-json")
    /// Any other JSON object per line (log-platform exports included: Loki, Elasticsearch hits, CloudWatch).
    public static let json = LogFormat("json")
    /// `key=value key="quoted value"` pairs.
    public static let logfmt = LogFormat("logfmt")
    /// An access line in the common log format, nothing more known.
    public static let access = LogFormat("access-log")
    /// Anything else: a leading timestamp, maybe a level, the rest is the message.
    public static let plain = LogFormat("plain")

    /// Every name of the catalogue, in detection order.
    public static var allCases: [LogFormat] { LogCatalogue.entries.map { LogFormat($0.name) } }
}

/// The unit of a number: a time since 1970 or a duration.
public enum TimeUnit: String, Sendable {
    case seconds = "s", milliseconds = "ms", microseconds = "µs", nanoseconds = "ns"
    /// A time: RFC 3339, the common log format, or an epoch number told by its digit count.
    case auto

    /// Milliseconds in one of this unit.
    var milliseconds: Double {
        switch self {
        case .seconds: 1e3
        case .milliseconds, .auto: 1
        case .microseconds: 1e-3
        case .nanoseconds: 1e-6
        }
    }
}

/// Where a field sits in a line.
public enum FieldPlace: Sendable, Equatable {
    /// A JSON member by its path (lowercase, `.` between levels; OTLP attributes as `attributes.<key>`),
    /// or a logfmt key.
    case key(String)
    /// The n-th token of a text line (from 0; negative: from the end). A `"quoted"` or `[bracketed]`
    /// run is one token.
    case token(Int)
    /// The sum of the numbers at these tokens (all present, none negative).
    case sum([Int])
    /// The time at the second key minus the time at the first.
    case span(String, String)
    /// The time at the start of the line (after a `[` or Ruby's `I, [`): RFC 3339 with or without
    /// a zone, a comma before the fraction, or syslog's `Nov 29 10:15:02` (year inferred).
    case leadingTime
    /// The text after the first occurrence of a literal.
    case after(String)
    /// The last number with a decimal point among the tokens after the n-th.
    case lastDecimal(after: Int)
    /// The last whole number among the tokens after the n-th.
    case lastInteger(after: Int)
    /// A time in two numbers: whole seconds at the first key, nanoseconds at the second (log4j2's `instant`).
    case secondsAndNanos(String, String)
    /// The last of the `/`-separated numbers of the n-th token (HAProxy's `%TR/%Tw/%Tc/%Tr/%Ta`: `%Ta`).
    case lastPart(Int)
}

/// A clue that a line has an entry's shape. All of an entry's clues must hold.
public enum FormatClue: Sendable, Equatable {
    /// A JSON member or logfmt key exists.
    case has(String)
    /// The JSON has no such member.
    case lacks(String)
    /// The JSON member exists and is a string.
    case string(String)
    /// One of the members or keys exists.
    case hasAny([String])
    /// The token parses as a time.
    case timeAt(Int)
    /// The token is an RFC 3339 time (`2026-11-29T12:55:03.748Z`), not the common log format's.
    case isoTimeAt(Int)
    /// The token is a quoted HTTP request line (`"GET /path HTTP/1.1"`).
    case requestAt(Int)
    /// The token is a number with a decimal point.
    case decimalAt(Int)
    /// The token is a whole number.
    case integerAt(Int)
    /// The token is `[bracketed]`.
    case bracketAt(Int)
    /// The token is one of these words.
    case wordAt(Int, [String])
    /// The line contains the literal.
    case contains(String)
    /// The line contains one of the literals.
    case containsAny([String])
    /// A text line that starts with a `key=value` pair and holds at least two.
    case logfmt
    /// A number with a decimal point among the tokens after the n-th.
    case decimalAfter(Int)
    /// A whole number among the tokens after the n-th.
    case integerAfter(Int)
    /// The line starts with a time (`FieldPlace.leadingTime`).
    case leadingTime
    /// The line starts with a time whose fraction follows a comma (`2026-11-29 10:15:02,123`).
    case leadingTimeWithComma
    /// The line starts with klog's header (`I1129 12:55:03.748000`).
    case klog
    /// The n-th token is four or more `/`-separated whole numbers (HAProxy's timers, `-1` for one not reached).
    case timersAt(Int)
    /// The n-th token is a number with its unit (`101ms`, `1.2s`).
    case durationAt(Int)
    /// The file's `#Fields:` directive names the columns (read before its lines); never a clue of one line.
    case directive
}

/// Which moment of a request a line's time stands for, when its format says so.
public enum TimeMark: String, Sendable {
    /// The request was received (Apache's `%t`, Envoy's `start_time`, HAProxy's `[%tr]`).
    case start
    /// The response was sent: the line is written when the request completes (nginx's `$time_local`).
    case end
    /// When the line was written (an application's logger): a line that reports the request's
    /// duration was written as it completed.
    case logged
    /// The format does not say (the common log format is written by servers that differ on it).
    case unknown
}

/// One known shape of server log line: how it is recognised and where each field sits.
/// Adding a format is adding an entry (and a fixture folder under `Tests/SiftCorrelateTests/Formats`).
public struct LogFormatEntry: Sendable {
    /// The name `--log-format` takes and every output shows.
    public var name: String
    /// What writes it.
    public var title: String
    /// JSON objects, or text (positional tokens, logfmt pairs, a message).
    public var json: Bool
    public var clues: [FormatClue]
    public var time: [FieldPlace] = []
    /// The unit of a time written as a number (`.auto`: by its digit count).
    public var timeUnit: TimeUnit = .auto
    /// Times without a zone: taken in `--log-timezone` (UTC without it).
    public var status: [FieldPlace] = []
    public var duration: [FieldPlace] = []
    public var durationUnit: TimeUnit = .milliseconds
    /// The unit of a bare duration number under a name that does not tell one (`latency`, `duration`),
    /// read by the generic rules that fill what the places above leave empty; nil: the generic default.
    public var bareDurationUnit: TimeUnit?
    public var method: [FieldPlace] = []
    public var path: [FieldPlace] = []
    public var level: [FieldPlace] = []
    public var message: [FieldPlace] = []
    /// Patterns read in the message: literals, and `{status}`, `{duration}` (in `durationUnit`), `{method}`,
    /// `{path}`, `{*}` (any word). Tried in order; the first that matches fills what is still empty.
    public var patterns: [String] = []
    /// Tokens whose text a client controls (the request line, referer, user agent): an id there is free text.
    public var freeText: [Int] = []
    /// Where the request id sits, for the docs (the parser finds ids itself and tells a field from free text).
    public var idAt: String
    /// The moment of the request its time stands for: with the line's duration it narrows the clock
    /// skew a whole-second time leaves open.
    public var timeMarks: TimeMark = .logged
    /// Another moment some servers that write this same shape stamp (gunicorn and hypercorn write
    /// Apache's layout with the time they log the request): when lines fit either reading, the clock
    /// skew keeps both open.
    public var sharedWithMark: TimeMark?
}

/// The catalogue of known server log shapes, tried in this order on a file's first line with a request id.
public enum LogCatalogue {
    /// The entry of a name: a lookup, since the parser and the clock skew ask once a line.
    public static func entry(named name: String) -> LogFormatEntry? { byName[name] }

    private static let byName: [String: LogFormatEntry] = Dictionary(entries.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

    public static let entries: [LogFormatEntry] = [
        // MARK: JSON
        LogFormatEntry(
            name: "palbase-json", title: "the platform's JSON lines (palbase logs)", json: true,
            clues: [.string("ts"), .has("request_id"), .hasAny(["msg", "status"]), .lacks("caller")],
            time: [.key("ts")], status: [.key("status")], duration: [.key("duration_ms")],
            method: [.key("method")], path: [.key("path")], level: [.key("level")], message: [.key("msg")],
            idAt: "request_id"),
        LogFormatEntry(
            name: "otlp-json", title: "OpenTelemetry OTLP/JSON log records", json: true,
            clues: [.has("timeunixnano")],
            time: [.key("timeunixnano"), .key("observedtimeunixnano")], timeUnit: .nanoseconds,
            status: [.key("attributes.http.response.status_code"), .key("attributes.http.status_code")],
            duration: [.key("attributes.duration_ms"), .key("attributes.http.server.request.duration")],
            method: [.key("attributes.http.request.method"), .key("attributes.http.method")],
            path: [.key("attributes.url.path"), .key("attributes.http.target"), .key("attributes.http.route")],
            level: [.key("severitytext")], message: [.key("body.stringvalue"), .key("body")],
            idAt: "an attribute (request_id, http.request.header.x-request-id)"),
        LogFormatEntry(
            name: "cloudflare-logpush", title: "Cloudflare Logpush (HTTP requests)", json: true,
            clues: [.has("edgestarttimestamp")],
            time: [.key("edgestarttimestamp")], status: [.key("edgeresponsestatus"), .key("originresponsestatus")],
            duration: [.span("edgestarttimestamp", "edgeendtimestamp"), .key("originresponsedurationms")],
            method: [.key("clientrequestmethod")], path: [.key("clientrequesturi"), .key("clientrequestpath")],
            idAt: "RequestHeaders / a custom field", timeMarks: .start),
        LogFormatEntry(
            name: "gcp-http-request", title: "Google Cloud Run / Cloud Load Balancing JSON (httpRequest)", json: true,
            clues: [.has("httprequest.status")],
            time: [.key("timestamp"), .key("receivetimestamp")], status: [.key("httprequest.status")],
            duration: [.key("httprequest.latency")], durationUnit: .seconds,
            method: [.key("httprequest.requestmethod")], path: [.key("httprequest.requesturl")],
            level: [.key("severity")], message: [.key("textpayload"), .key("jsonpayload.message")],
            idAt: "labels / jsonPayload", timeMarks: .unknown),
        LogFormatEntry(
            name: "traefik-json", title: "Traefik access log, JSON", json: true,
            clues: [.has("downstreamstatus")],
            time: [.key("startutc"), .key("startlocal"), .key("time")], status: [.key("downstreamstatus")],
            duration: [.key("duration")], durationUnit: .nanoseconds, bareDurationUnit: .nanoseconds,
            method: [.key("requestmethod")], path: [.key("requestpath")], level: [.key("level")],
            message: [.key("msg")], idAt: "request_X-Request-Id", timeMarks: .start),
        LogFormatEntry(
            name: "caddy-json", title: "Caddy access log, JSON", json: true,
            clues: [.has("request.uri"), .has("duration"), .has("status")],
            time: [.key("ts")], status: [.key("status")], duration: [.key("duration")], durationUnit: .seconds,
            bareDurationUnit: .seconds,
            method: [.key("request.method")], path: [.key("request.uri")], level: [.key("level")],
            message: [.key("msg")], idAt: "request.headers.X-Request-Id", timeMarks: .end),
        LogFormatEntry(
            name: "pino-http", title: "pino-http (Node.js)", json: true,
            clues: [.has("responsetime"), .has("res.statuscode")],
            time: [.key("time")], timeUnit: .milliseconds, status: [.key("res.statuscode")],
            duration: [.key("responsetime")], bareDurationUnit: .milliseconds,
            method: [.key("req.method")], path: [.key("req.url")], level: [.key("level")], message: [.key("msg")],
            idAt: "req.id / a header", timeMarks: .end),
        LogFormatEntry(
            name: "bunyan", title: "bunyan / restify audit log (Node.js)", json: true,
            clues: [.has("v"), .has("hostname"), .has("name"), .has("pid")],
            time: [.key("time")], status: [.key("res.statuscode"), .key("statuscode")],
            duration: [.key("latency")], bareDurationUnit: .milliseconds,
            method: [.key("req.method")], path: [.key("req.url")], level: [.key("level")], message: [.key("msg")],
            idAt: "req_id"),
        LogFormatEntry(
            name: "django-structlog", title: "django-structlog", json: true,
            clues: [.has("event"), .has("request_id"), .has("timestamp")],
            time: [.key("timestamp")], status: [.key("code"), .key("status_code")],
            duration: [.key("duration_ms"), .key("duration")], bareDurationUnit: .seconds,
            method: [.key("request")], path: [.key("request")], level: [.key("level")], message: [.key("event")],
            idAt: "request_id"),
        LogFormatEntry(
            name: "zap-json", title: "zap (Go), production JSON", json: true,
            clues: [.has("ts"), .has("caller"), .has("msg")],
            time: [.key("ts")], status: [.key("status")], bareDurationUnit: .seconds,
            method: [.key("method")], path: [.key("path")], level: [.key("level")], message: [.key("msg")],
            idAt: "a field (request_id, …)"),
        LogFormatEntry(
            name: "serilog-clef", title: "Serilog compact JSON (CLEF; RequestLoggingMiddleware's Elapsed in ms)", json: true,
            clues: [.has("@t"), .hasAny(["@mt", "@m"])],
            time: [.key("@t")], status: [.key("statuscode")], duration: [.key("elapsed")], bareDurationUnit: .milliseconds,
            method: [.key("requestmethod")], path: [.key("requestpath")], level: [.key("@l")], message: [.key("@m"), .key("@mt")],
            idAt: "RequestId / a property"),
        LogFormatEntry(
            name: "envoy-json", title: "Envoy / Istio access log, JSON (duration in ms)", json: true,
            clues: [.has("start_time"), .has("response_code")],
            time: [.key("start_time")], status: [.key("response_code")], duration: [.key("duration")],
            bareDurationUnit: .milliseconds, method: [.key("method")], path: [.key("path")],
            idAt: "request_id (%REQ(X-REQUEST-ID)%)", timeMarks: .start),
        LogFormatEntry(
            name: "ecs", title: "Elastic Common Schema JSON (event.duration in ns)", json: true,
            clues: [.has("@timestamp"), .hasAny(["ecs.version", "log.level", "event.duration"])],
            time: [.key("@timestamp")], status: [.key("http.response.status_code")], duration: [.key("event.duration")],
            durationUnit: .nanoseconds, method: [.key("http.request.method")], path: [.key("url.path"), .key("url.original")],
            level: [.key("log.level")], message: [.key("message")], idAt: "http.request.id / a field"),
        LogFormatEntry(
            name: "log4j2-json", title: "log4j2 JsonLayout / JsonTemplateLayout (instant, timeMillis)", json: true,
            clues: [.hasAny(["instant.epochsecond", "timemillis"]), .has("loggername")],
            time: [.secondsAndNanos("instant.epochsecond", "instant.nanoofsecond"), .key("timemillis")],
            level: [.key("level")], message: [.key("message")], idAt: "contextMap / a field"),
        LogFormatEntry(
            name: "kong", title: "Kong gateway log plugins (latencies in ms, started_at epoch ms)", json: true,
            clues: [.has("latencies.request"), .has("started_at")],
            time: [.key("started_at")], timeUnit: .milliseconds, status: [.key("response.status")],
            duration: [.key("latencies.request")], method: [.key("request.method")], path: [.key("request.uri")],
            idAt: "request.headers.x-request-id", timeMarks: .start),
        LogFormatEntry(
            name: "aspnet-json", title: "ASP.NET Core JSON console (State.ElapsedMilliseconds)", json: true,
            clues: [.has("eventid"), .has("category"), .has("loglevel")],
            time: [.key("timestamp")], status: [.key("state.statuscode")], duration: [.key("state.elapsedmilliseconds")],
            method: [.key("state.method")], path: [.key("state.path")], level: [.key("loglevel")], message: [.key("message")],
            idAt: "a scope's RequestId"),
        LogFormatEntry(
            name: "lograge-json", title: "lograge (Rails), JSON (duration in ms)", json: true,
            clues: [.has("controller"), .has("action"), .has("status"), .has("duration")],
            status: [.key("status")], duration: [.key("duration")], bareDurationUnit: .milliseconds,
            method: [.key("method")], path: [.key("path")], idAt: "request_id (custom_options)"),
        LogFormatEntry(
            name: "echo", title: "Echo (Go) request logger, JSON (latency in ns)", json: true,
            clues: [.has("latency_human"), .has("latency")],
            time: [.key("time")], status: [.key("status")], duration: [.key("latency")], durationUnit: .nanoseconds,
            method: [.key("method")], path: [.key("uri")], idAt: "id (the RequestID middleware's X-Request-Id)"),
        LogFormatEntry(
            name: "aws-apigateway", title: "AWS API Gateway access log, JSON ($context variables)", json: true,
            clues: [.has("httpmethod"), .hasAny(["requesttime", "requesttimeepoch"])],
            time: [.key("requesttimeepoch"), .key("requesttime")], status: [.key("status")],
            duration: [.key("responselatency"), .key("integrationlatency")], method: [.key("httpmethod")],
            path: [.key("path"), .key("resourcepath"), .key("routekey")],
            idAt: "a field of the format ($context.requestOverride…, a header)",
            timeMarks: .start),
        LogFormatEntry(
            name: "akamai-datastream", title: "Akamai DataStream 2, JSON", json: true,
            clues: [.has("reqtimesec"), .has("statuscode")],
            time: [.key("reqtimesec")], status: [.key("statuscode")], duration: [.key("turnaroundtimemsec")],
            method: [.key("reqmethod")], path: [.key("reqpath")], idAt: "customField / a header field", timeMarks: .start),
        LogFormatEntry(
            name: "nginx-json", title: "nginx log_format escape=json", json: true,
            clues: [.has("request_time")],
            time: [.key("msec"), .key("time_iso8601"), .key("time_local"), .key("time")],
            status: [.key("status")], duration: [.key("request_time")], durationUnit: .seconds,
            method: [.key("request_method"), .key("request")], path: [.key("request_uri"), .key("uri"), .key("request")],
            idAt: "request_id", timeMarks: .end),
        LogFormatEntry(
            name: "logrus-json", title: "logrus (Go), JSONFormatter", json: true,
            clues: [.has("time"), .has("level"), .has("msg"), .lacks("ts")],
            time: [.key("time")], status: [.key("status")], bareDurationUnit: .nanoseconds,
            method: [.key("method")], path: [.key("path")], level: [.key("level")], message: [.key("msg")],
            idAt: "a field (request_id, …)"),
        LogFormatEntry(
            name: "zerolog", title: "zerolog (Go; durations in ms)", json: true,
            clues: [.has("time"), .has("level"), .has("message"), .lacks("msg")],
            time: [.key("time")], status: [.key("status")], bareDurationUnit: .milliseconds,
            method: [.key("method")], path: [.key("path")], level: [.key("level")], message: [.key("message")],
            idAt: "a field (request_id, …)"),
        LogFormatEntry(
            name: "json", title: "any other JSON lines (Loki, Elasticsearch, CloudWatch exports included)", json: true,
            clues: [], idAt: "any field"),

        // MARK: Text
        LogFormatEntry(
            name: "aws-alb", title: "AWS Application Load Balancer access log", json: false,
            clues: [.wordAt(0, ["http", "https", "h2", "grpcs", "ws", "wss"]), .timeAt(1), .requestAt(12)],
            time: [.token(1)], status: [.token(8)], duration: [.sum([5, 6, 7])], durationUnit: .seconds,
            method: [.token(12)], path: [.token(12)], freeText: [12, 13], idAt: "trace_id or a custom field", timeMarks: .end),
        LogFormatEntry(
            name: "squid", title: "Squid native access log (elapsed ms)", json: false,
            clues: [.decimalAt(0), .integerAt(1), .integerAt(4), .containsAny([" TCP_", " UDP_", " NONE"])],
            time: [.token(0)], status: [.lastPart(3)], duration: [.token(1)], method: [.token(5)], path: [.token(6)],
            freeText: [6], idAt: "a token after the fixed fields (logformat %{X-Request-Id}>h)", timeMarks: .end),
        LogFormatEntry(
            name: "gin", title: "Gin (Go) default logger", json: false,
            clues: [.contains("[GIN] "), .integerAt(5), .durationAt(7)],
            time: [.leadingTime], status: [.token(5)], duration: [.token(7)], method: [.token(11)], path: [.token(12)],
            message: [.after("[GIN] ")], freeText: [12], idAt: "none: method, path and time", timeMarks: .end),
        LogFormatEntry(
            name: "actix-web", title: "actix-web Logger (Rust, env_logger prefix; %T in s)", json: false,
            clues: [.contains(" actix_web::middleware::logger] "), .requestAt(2), .integerAt(3)],
            time: [.leadingTime], status: [.token(3)], duration: [.lastDecimal(after: 6)], durationUnit: .seconds,
            method: [.token(2)], path: [.token(2)], freeText: [2, 5, 6], idAt: "%{X-Request-Id}i", timeMarks: .end),
        LogFormatEntry(
            name: "traefik-clf", title: "Traefik access log, common log format (duration in ms last)", json: false,
            clues: [.timeAt(3), .requestAt(4), .integerAt(9), .durationAt(-1)],
            time: [.token(3)], status: [.token(5)], duration: [.token(-1)],
            method: [.token(4)], path: [.token(4)], freeText: [4, 7, 8], idAt: "a header kept in the line", timeMarks: .start),
        LogFormatEntry(
            name: "istio", title: "Istio proxy access log (Envoy with response details; duration in ms)", json: false,
            clues: [.bracketAt(0), .isoTimeAt(0), .requestAt(1), .integerAt(7), .integerAt(8), .integerAt(9)],
            time: [.token(0)], status: [.token(2)], duration: [.token(9)],
            method: [.token(1)], path: [.token(1)], freeText: [1, 6, 11, 12], idAt: "\"%REQ(X-REQUEST-ID)%\"", timeMarks: .start),
        LogFormatEntry(
            name: "envoy", title: "Envoy default access log", json: false,
            clues: [.bracketAt(0), .isoTimeAt(0), .requestAt(1)],
            time: [.token(0)], status: [.token(2)], duration: [.token(6)],
            method: [.token(1)], path: [.token(1)], freeText: [1, 8, 9, 11], idAt: "\"%REQ(X-REQUEST-ID)%\"", timeMarks: .start),
        LogFormatEntry(
            name: "ingress-nginx", title: "Kubernetes ingress-nginx (upstreaminfo)", json: false,
            clues: [.timeAt(3), .requestAt(4), .integerAt(9), .decimalAt(10), .bracketAt(11)],
            time: [.key("msec"), .token(3)], status: [.token(5)], duration: [.token(10)], durationUnit: .seconds,
            method: [.token(4)], path: [.token(4)], freeText: [4, 7, 8], idAt: "$req_id (last)", timeMarks: .end),
        LogFormatEntry(
            name: "nginx-combined", title: "nginx combined + $request_id $request_time", json: false,
            clues: [.timeAt(3), .requestAt(4), .decimalAfter(8)],
            time: [.key("msec"), .token(3)], status: [.token(5)], duration: [.key("request_time"), .key("rt"), .lastDecimal(after: 8)],
            durationUnit: .seconds, method: [.token(4)], path: [.token(4)], freeText: [4, 7, 8], idAt: "$request_id", timeMarks: .end),
        LogFormatEntry(
            name: "apache-combined", title: "Apache combined + %{X-Request-Id}i %D (µs)", json: false,
            clues: [.timeAt(3), .requestAt(4), .integerAfter(8)],
            time: [.token(3)], status: [.token(5)], duration: [.lastInteger(after: 8)], durationUnit: .microseconds,
            method: [.token(4)], path: [.token(4)], freeText: [4, 7, 8], idAt: "%{X-Request-Id}i", timeMarks: .start,
            sharedWithMark: .end),
        // aiohttp's access log: no ident or user fields, and `%t` is when the request started
        // (`now − elapsed`); `%D` microseconds at the end (`aiohttp-us`), else `%Tf` seconds or `rt=`.
        LogFormatEntry(
            name: "aiohttp-us", title: "aiohttp access log + %{X-Request-Id}i %D (µs)", json: false,
            clues: [.bracketAt(1), .timeAt(1), .requestAt(2), .integerAfter(6)],
            time: [.token(1)], status: [.token(3)], duration: [.lastInteger(after: 6)], durationUnit: .microseconds,
            method: [.token(2)], path: [.token(2)], freeText: [2, 5, 6], idAt: "%{X-Request-Id}i", timeMarks: .start),
        LogFormatEntry(
            name: "aiohttp", title: "aiohttp access log + %{X-Request-Id}i %Tf (s)", json: false,
            clues: [.bracketAt(1), .timeAt(1), .requestAt(2), .integerAt(3)],
            time: [.token(1)], status: [.token(3)], duration: [.key("request_time"), .key("rt"), .lastDecimal(after: 4)],
            durationUnit: .seconds, method: [.token(2)], path: [.token(2)], freeText: [2, 5, 6], idAt: "%{X-Request-Id}i",
            timeMarks: .start),
        LogFormatEntry(
            name: "access-log", title: "common / combined log format", json: false,
            clues: [.timeAt(3), .requestAt(4)],
            time: [.key("msec"), .token(3)], status: [.token(5)], duration: [.key("request_time"), .key("rt")], durationUnit: .seconds,
            method: [.token(4)], path: [.token(4)], freeText: [4, 7, 8], idAt: "a token after the fixed fields", timeMarks: .unknown),
        LogFormatEntry(
            name: "w3c", title: "W3C extended log (IIS, CloudFront standard logs): #Fields: names the columns", json: false,
            clues: [.directive], idAt: "a column whose value is the id (cs(X-Request-Id))", timeMarks: .unknown),
        LogFormatEntry(
            name: "haproxy-http", title: "HAProxy option httplog ([%tr], %TR/%Tw/%Tc/%Tr/%Ta in ms)", json: false,
            clues: [.bracketAt(1), .timeAt(1), .timersAt(4), .integerAt(5)],
            time: [.token(1)], status: [.token(5)], duration: [.lastPart(4)], method: [.token(-1)], path: [.token(-1)],
            freeText: [-1], idAt: "a captured header {…}", timeMarks: .start),
        LogFormatEntry(
            name: "klog", title: "klog (Kubernetes components; httplog's latency and resp=)", json: false,
            clues: [.klog],
            time: [.leadingTime], status: [.key("resp"), .key("status")], duration: [.key("latency")],
            method: [.key("verb"), .key("method")], path: [.key("uri"), .key("path")], message: [.after("] ")],
            idAt: "a key=value field (audit-ID, …)"),
        LogFormatEntry(
            name: "zap-console", title: "zap (Go), console encoder (fields as JSON; durations in s)", json: false,
            clues: [.leadingTime, .contains("\t"), .wordAt(1, ["DEBUG", "INFO", "WARN", "ERROR", "DPANIC", "PANIC", "FATAL"])],
            time: [.leadingTime], bareDurationUnit: .seconds, level: [.token(1)], idAt: "a field of the JSON"),
        LogFormatEntry(
            name: "monolog", title: "Monolog line formatter (PHP: Symfony, Laravel)", json: false,
            clues: [
                .leadingTime,
                .containsAny([".INFO: ", ".ERROR: ", ".WARNING: ", ".DEBUG: ", ".NOTICE: ", ".CRITICAL: ", ".ALERT: ", ".EMERGENCY: "])
            ],
            time: [.leadingTime], bareDurationUnit: .milliseconds, message: [.after(": ")], idAt: "a field of the context or extra JSON"),
        LogFormatEntry(
            name: "lograge", title: "lograge (Rails), key=value (duration in ms)", json: false,
            clues: [.has("controller"), .has("action"), .has("status"), .has("duration")],
            status: [.key("status")], duration: [.key("duration")], bareDurationUnit: .milliseconds,
            method: [.key("method")], path: [.key("path")], idAt: "a key=value field or a [tag]"),
        LogFormatEntry(
            name: "uwsgi", title: "uWSGI request log (msecs)", json: false,
            clues: [.contains(" => generated ")],
            patterns: ["{method} {path} => generated {*} bytes in {duration} msecs (HTTP/{*} {status})"],
            idAt: "a token after the fixed fields", timeMarks: .unknown),
        LogFormatEntry(
            name: "heroku-router", title: "Heroku router", json: false,
            clues: [.containsAny([" heroku[router]: ", " dyno="]), .contains(" service=")],
            time: [.leadingTime], status: [.key("status")], duration: [.key("service")],
            method: [.key("method")], path: [.key("path")], level: [.key("at")],
            idAt: "request_id=", timeMarks: .end),
        LogFormatEntry(
            name: "rails", title: "Rails (tagged logging, Ruby Logger)", json: false,
            clues: [.containsAny(["] Completed ", "] Started ", "] Processing by "])],
            time: [.leadingTime], level: [.token(2)], message: [.after(" -- : "), .after("] ")],
            patterns: ["Completed {status} {*} in {duration}ms", "Started {method} \"{path}\""],
            idAt: "a [tag] before the message"),
        LogFormatEntry(
            name: "spring-boot", title: "Spring Boot default console pattern", json: false,
            clues: [.leadingTime, .contains(" --- [")],
            time: [.leadingTime], level: [.token(1), .token(2)], message: [.after(" : ")],
            patterns: ["{method} {path} -> {status} in {duration} ms", "-> {status} in {duration} ms", "-> {status} in {duration}ms"],
            idAt: "an MDC [tag]"),
        LogFormatEntry(
            name: "python-logging", title: "Python logging (asctime with comma milliseconds)", json: false,
            clues: [.leadingTimeWithComma],
            time: [.leadingTime], method: [.key("method")], path: [.key("path")], level: [.token(2)],
            message: [.after(": "), .after(" - ")],
            patterns: ["{method} {path} {status} {duration}ms", "{status} {duration}ms"],
            idAt: "a [tag] or a field in the message"),
        LogFormatEntry(
            name: "logrus-text", title: "logrus (Go), TextFormatter", json: false,
            clues: [.has("time"), .has("level"), .has("msg")],
            time: [.key("time")], status: [.key("status")], method: [.key("method")], path: [.key("path")],
            level: [.key("level")], message: [.key("msg")], idAt: "a key=value field"),
        LogFormatEntry(
            name: "logfmt", title: "logfmt key=value pairs", json: false,
            clues: [.logfmt], time: [.key("ts"), .key("time"), .key("timestamp")], idAt: "a key=value field"),
        LogFormatEntry(
            name: "plain", title: "plain text: a leading time, maybe a level, a message", json: false,
            clues: [], time: [.leadingTime], idAt: "free text (a [tag] counts as a field)")
    ]
}
