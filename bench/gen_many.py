#!/usr/bin/env python3
"""Exports and logs of very many small parts, for peak-memory checks: N tiny sessions in one zip
(each with a failed request and a blank line), N cited and N uncited small blobs, and NLOGS log files.
Usage: N=100000 NLOGS=5000 bench/gen_many.py OUTDIR [sessions] [blobs] [logs]"""
import sys, os, json, zipfile, hashlib, uuid, random
if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
    sys.exit(__doc__)
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
random.seed(7)

def uid(i, p):
    return f"{p}_{uuid.UUID(int=(i * 7919 + 12345) & ((1<<128)-1))}"

def header(sid, t="2026-11-29T12:55:01.002000Z"):
    return json.dumps({"type":"session","seq":0,"ts":t,"formatVersion":1,"sessionId":sid,"launchedAt":t,
        "app":{"bundleId":"com.acme.shop","version":"4.2.0","build":"512"},"sdk":{"name":"palbe-swift","version":"3.1.0"},
        "device":{"model":"iPhone16,1","system":"iOS 18.1.1","locale":"en_GB","timeZone":"Europe/London"},
        "environmentRef":"env_prod_eu","userId":"usr_123"}, separators=(",",":"))

def net(seq, rid, status=200, state="success", body=None, ts="2026-11-29T12:55:01.538000Z", rec=None):
    r = {"type":"network","seq":seq,"ts":ts,"id":rec or f"rec_{seq:08x}","source":"sdk","kind":"http","category":"call",
         "label":"x","method":"GET","url":"https://api.palbase.studio/v1/catalog","state":state,"duration":0.2,
         "statusCode":status,"requestId":rid,"echoedRequestId":rid,
         "request":{"headers":[{"name":"X-Request-Id","value":rid}]},
         "response":{"headers":[{"name":"Content-Type","value":"application/json"}],"body":body or {"size":2,"contentType":"application/json","encoding":"utf8","text":"{}"}},
         "metrics":{"taskStart":"2026-11-29T12:55:01.041000Z","taskEnd":"2026-11-29T12:55:01.262000Z","redirectCount":0,
            "transactions":[{"fetchStart":"2026-11-29T12:55:01.041000Z","requestStart":"2026-11-29T12:55:01.100000Z","responseStart":"2026-11-29T12:55:01.200000Z","responseEnd":"2026-11-29T12:55:01.262000Z"}]}}
    return json.dumps(r, separators=(",",":"))

# 1. 100k tiny sessions, each one failing request and one blank line (a finding per file).
def sessions_zip(n, path):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for i in range(n):
            sid = uid(i, "ses")
            rid = uid(i, "req")
            lines = [header(sid), net(1, rid, status=503, state="failure"), "", net(2, uid(i+10**7, "req"))]
            z.writestr(f"PalbeConsole/sessions/{sid}.jsonl", "\n".join(lines) + "\n")

# 2. many blobs: n cited (from 100 sessions), n uncited.
def blobs_zip(n, path):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        per = n // 100
        k = 0
        for s in range(100):
            sid = uid(s, "ses")
            lines = [header(sid)]
            for j in range(per):
                data = f"blob-{k}".encode()
                h = hashlib.sha256(data).hexdigest()
                z.writestr(f"PalbeConsole/blobs/{h[:2]}/{h}", data)
                lines.append(net(j + 1, uid(k, "req"), body={"size":len(data),"contentType":"text/plain","blob":"sha256:"+h,"storedSize":len(data)}))
                k += 1
            z.writestr(f"PalbeConsole/sessions/{sid}.jsonl", "\n".join(lines) + "\n")
        for u in range(n):
            data = f"orphan-{u}".encode()
            h = hashlib.sha256(data).hexdigest()
            z.writestr(f"PalbeConsole/blobs/{h[:2]}/{h}", data)

# 3. 5000 log files, each a few lines mentioning ids of sessions.zip
def logs(nfiles, lines_per, dirpath, nsess):
    os.makedirs(dirpath, exist_ok=True)
    for f in range(nfiles):
        with open(os.path.join(dirpath, f"api-{f:05d}.log"), "w") as fh:
            for j in range(lines_per):
                i = (f * lines_per + j) % nsess
                fh.write(json.dumps({"ts":"2026-11-29T12:55:01.300000Z","level":"error","request_id":uid(i,"req"),"method":"GET",
                    "path":"/v1/catalog","status":503,"duration_ms":10.0,"msg":"request failed"}) + "\n")

what = sys.argv[2:] or ["sessions", "blobs", "logs"]
n = int(os.environ.get("N", "100000"))
if "sessions" in what: sessions_zip(n, os.path.join(out, "sessions.zip"))
if "blobs" in what: blobs_zip(n, os.path.join(out, "blobs.zip"))
if "logs" in what: logs(int(os.environ.get("NLOGS", "5000")), 20, os.path.join(out, "logs"), n)
