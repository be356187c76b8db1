#!/usr/bin/env python3
"""Hostile inputs within pbsift's default read bounds (1 GiB decompressed per input, 16 MiB lines,
1 Mi values a line, depth 512, 200 000 entries), for peak-memory and time checks with
bench/hostile_rss.sh. SCALE (default 1) multiplies the sizes that can grow; SCALE=4 puts the big
ones at the 1 GiB bound.
Usage: [SCALE=1] bench/gen_hostile.py OUTDIR [case…]  (no case: all)"""
import gzip, io, json, os, sys, tarfile, zipfile, zlib, hashlib

if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
    sys.exit(__doc__)
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
SCALE = int(os.environ.get("SCALE", "1"))
MiB = 1 << 20
TS = "2026-11-29T12:55:01.538000Z"


def header(sid):
    return json.dumps({"type": "session", "seq": 0, "ts": TS, "formatVersion": 1, "sessionId": sid, "launchedAt": TS,
                       "app": {"bundleId": "com.acme.shop", "version": "4.2.0", "build": "512"},
                       "sdk": {"name": "palbe-swift", "version": "3.1.0"},
                       "device": {"model": "iPhone16,1", "system": "iOS 18.1.1"}}, separators=(",", ":")).encode()


def net(seq, extra=b"", status=503, text=b"{}"):
    """A failing network record; `extra` is spliced in as more members (raw JSON), `text` is the body."""
    rid = f"req_{seq:08d}"
    head = (f'{{"type":"network","seq":{seq},"ts":"{TS}","id":"rec_{seq:08x}","source":"sdk","kind":"http",'
            f'"category":"call","method":"GET","url":"https://api.palbase.studio/v1/catalog?i={seq}","state":"failure",'
            f'"duration":0.2,"statusCode":{status},"requestId":"{rid}","echoedRequestId":"{rid}",'
            f'"request":{{"headers":[{{"name":"X-Request-Id","value":"{rid}"}}]}},'
            f'"response":{{"headers":[],"body":{{"size":{len(text)},"contentType":"text/plain","encoding":"utf8","text":"').encode()
    return head + text + b'"}}' + extra + b"}"


def session_lines(lines, sid="ses_hostile"):
    yield header(sid)
    yield from lines


def write_jsonl(name, lines, gz=False):
    path = os.path.join(out, name)
    f = gzip.open(path, "wb", compresslevel=1) if gz else open(path, "wb")
    with f:
        for l in lines:
            f.write(l + b"\n")


def case(name):
    return len(sys.argv) <= 2 or name in sys.argv[2:]


# 1. Lines at the 16 MiB bound: 16×SCALE records with a 16 MiB body each (256 MiB × SCALE).
if case("lines16m"):
    body = b"a" * (16 * MiB - 2048)
    write_jsonl("lines16m.jsonl.gz", session_lines(net(i + 1, text=body) for i in range(15 * SCALE)), gz=True)

# 2. Lines of 1 Mi values each: `[0,0,…]` (2 MiB a line), 64×SCALE lines.
if case("values1m"):
    arr = b',"x":[' + b",".join([b"0"] * ((1 << 20) - 64)) + b"]"
    write_jsonl("values1m.jsonl", session_lines(net(i + 1, extra=arr) for i in range(64 * SCALE)))

# 3. Lines of 1 Mi tiny strings each: `["a","a",…]` (4 MiB a line), 32×SCALE lines.
if case("strings1m"):
    arr = b',"x":[' + b",".join([b'"a"'] * ((1 << 20) - 64)) + b"]"
    write_jsonl("strings1m.jsonl", session_lines(net(i + 1, extra=arr) for i in range(32 * SCALE)))

# 4. Many duplicate keys: 500k copies of one name in a line (4 MiB), 32×SCALE lines.
if case("dupkeys"):
    dup = b"," + b",".join([b'"k":1'] * 500_000)
    write_jsonl("dupkeys.jsonl", session_lines(net(i + 1, extra=dup) for i in range(32 * SCALE)))

# 5. Deep nesting: each line nested 511 deep (inside the bound) and then 100k deep (past it).
if case("deep"):
    ok = b',"x":' + b"[" * 500 + b"]" * 500
    bad = b',"x":' + b"[" * 100_000 + b"]" * 100_000
    write_jsonl("deep.jsonl", session_lines(net(i + 1, extra=ok if i % 2 else bad) for i in range(2000 * SCALE)))

# 6. Two million `{}` lines, and 2 M normal small records (per-line cost).
if case("empties"):
    write_jsonl("empties.jsonl", session_lines(b"{}" for _ in range(2_000_000 * SCALE)))

# 7. A gzip of 1 GiB of newlines (1 MB compressed) and of 1 GiB of one long run of `a` (lines over the bound).
if case("bombs"):
    for name, unit in (("bomb-newlines.jsonl.gz", b"\n"), ("bomb-aaa.jsonl.gz", b"a")):
        with gzip.open(os.path.join(out, name), "wb", compresslevel=9) as f:
            f.write(header("ses_bomb") + b"\n")
            chunk = unit * (16 * MiB)
            for _ in range(64):
                f.write(chunk)

# 8. Gzip inside gzip: a .jsonl.gz (1 M records, 250 MiB × SCALE) stored inside a .tar.gz, and
#    that .jsonl.gz gzip'd again as a whole input.
if case("gzgz"):
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1) as g:
        g.write(header("ses_gzgz") + b"\n")
        line = net(1, text=b"x" * 200) + b"\n"
        for i in range(1_000_000 * SCALE):
            g.write(line)
    inner = raw.getvalue()
    with tarfile.open(os.path.join(out, "gzgz.tar.gz"), "w:gz", compresslevel=1) as t:
        ti = tarfile.TarInfo("PalbeConsole/sessions/ses_gzgz.jsonl.gz")
        ti.size = len(inner)
        t.addfile(ti, io.BytesIO(inner))
    with open(os.path.join(out, "gzgz.jsonl.gz"), "wb") as f:
        f.write(gzip.compress(inner, compresslevel=1))

# 9. A HAR of 250 MiB × SCALE: 2000 entries of 128 KiB each.
if case("har"):
    with open(os.path.join(out, "big.har"), "wb") as f:
        f.write(b'{\n  "log": {\n    "version": "1.2",\n    "creator": {"name": "hostile", "version": "1"},\n    "entries": [\n')
        text = "b" * (128 * 1024)
        n = 2000 * SCALE
        for i in range(n):
            e = {"startedDateTime": TS, "time": 12.5,
                 "request": {"method": "GET", "url": f"https://api.palbase.studio/v1/x?i={i}", "httpVersion": "HTTP/1.1",
                             "headers": [{"name": "X-Request-Id", "value": f"req_{i:08d}"}], "queryString": [], "cookies": [],
                             "headersSize": -1, "bodySize": 0},
                 "response": {"status": 503, "statusText": "", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [],
                              "content": {"size": len(text), "mimeType": "text/plain", "text": text},
                              "redirectURL": "", "headersSize": -1, "bodySize": len(text)},
                 "cache": {}, "timings": {"send": 1, "wait": 10, "receive": 1.5}}
            f.write(b"      " + json.dumps(e).encode() + (b",\n" if i < n - 1 else b"\n"))
        f.write(b"    ]\n  }\n}\n")

# 10. A zip of 100k entries (tiny sessions) and a zip of 199 000 empty files.
if case("zip100k"):
    with zipfile.ZipFile(os.path.join(out, "zip100k.zip"), "w", zipfile.ZIP_DEFLATED) as z:
        for i in range(100_000):
            sid = f"ses_{i:08d}"
            z.writestr(f"PalbeConsole/sessions/{sid}.jsonl", header(sid) + b"\n" + net(1) + b"\n")
    with zipfile.ZipFile(os.path.join(out, "zip199k-empty.zip"), "w", zipfile.ZIP_STORED) as z:
        z.writestr("PalbeConsole/sessions/ses_one.jsonl", header("ses_one") + b"\n" + net(1) + b"\n")
        for i in range(199_000):
            z.writestr(f"PalbeConsole/other/f{i:08d}", b"")

# 11. A tar of 50k entries with 4 KiB names (GNU long names).
if case("tarnames"):
    with tarfile.open(os.path.join(out, "longnames.tar"), "w", format=tarfile.GNU_FORMAT) as t:
        for i in range(50_000):
            name = "PalbeConsole/sessions/" + ("d" * 200 + "/") * 19 + f"ses_{i:08d}.jsonl"
            data = header(f"ses_{i:08d}") + b"\n" + net(1) + b"\n"
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))

# 11b. A tar of 10 000 sessions whose header texts (session id, user id) are 20 KB each.
if case("longids"):
    with tarfile.open(os.path.join(out, "longids.tar"), "w") as t:
        for i in range(10_000 * SCALE):
            h = json.loads(header(f"ses_{i:08d}" + "x" * 20_000))
            h["userId"] = "usr_" + "u" * 20_000 + str(i)
            data = json.dumps(h, separators=(",", ":")).encode() + b"\n" + net(1) + b"\n"
            ti = tarfile.TarInfo(f"PalbeConsole/sessions/s{i:08d}.jsonl")
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))

# 12. One million sessions of one line each, in a .tar.gz (the header only).
if case("tinysessions"):
    with tarfile.open(os.path.join(out, "tiny1m.tar.gz"), "w:gz", compresslevel=1) as t:
        for i in range(190_000):
            data = header(f"ses_{i:08d}") + b"\n"
            ti = tarfile.TarInfo(f"PalbeConsole/sessions/ses_{i:08d}.jsonl")
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))

# 13. Server logs with 1 MiB lines (each naming a request id at its end), 256 × SCALE lines, and a
#     small export whose requests they name.
if case("logs"):
    d = os.path.join(out, "logs1m")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "api.log"), "wb") as f:
        for i in range(256 * SCALE):
            msg = "m" * (MiB - 200)
            f.write(json.dumps({"ts": TS, "level": "error", "msg": msg, "status": 503,
                                "request_id": f"req_{(i % 1000) + 1:08d}"}).encode() + b"\n")
    write_jsonl("small.jsonl", session_lines(net(i + 1) for i in range(1000)))

# 14. A blob that is a gzip bomb (16 MiB of zeros stored as 16 KiB, then 1 GiB of zeros as 1 MiB) cited by a record.
if case("blobbomb"):
    with zipfile.ZipFile(os.path.join(out, "blobbomb.zip"), "w", zipfile.ZIP_STORED) as z:
        lines = [header("ses_blob")]
        for i, size in enumerate((16 * MiB, 1024 * MiB)):
            c = zlib.compressobj(9, zlib.DEFLATED, 31)
            blob = b"".join([c.compress(b"\0" * (16 * MiB)) for _ in range(size // (16 * MiB))]) + c.flush()
            h = hashlib.sha256(blob).hexdigest()
            z.writestr(f"PalbeConsole/blobs/{h[:2]}/{h}", blob)
            lines.append(net(i + 1).replace(b'"size":2,"contentType":"text/plain","encoding":"utf8","text":"{}"',
                                           f'"size":{len(blob)},"contentType":"application/gzip","blob":"sha256:{h}","storedSize":{len(blob)}'.encode()))
        z.writestr("PalbeConsole/sessions/ses_blob.jsonl", b"\n".join(lines) + b"\n")
