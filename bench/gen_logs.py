#!/usr/bin/env python3
"""Generates a correlate benchmark: a session export with N network records and a large JSON-lines
server log (the platform's format, SESSION-FORMAT.md §5) in which those N ids appear once each,
sparsely, among lines of other requests spread over a day.

usage: gen_logs.py OUT_DIR SIZE_BYTES [IDS=200]
writes OUT_DIR/export/sessions/<ses>.jsonl, OUT_DIR/api.log, OUT_DIR/ids.txt
"""
import os
import random
import sys

out = sys.argv[1]
size = int(sys.argv[2])
nids = int(sys.argv[3]) if len(sys.argv) > 3 else 200
rng = random.Random(42)

def uuid():
    h = "%032x" % rng.getrandbits(128)
    return "%s-%s-4%s-a%s-%s" % (h[0:8], h[8:12], h[13:16], h[17:20], h[20:32])

def ts(t):
    s = int(t)
    ms = int(round((t - s) * 1000))
    if ms == 1000:
        s, ms = s + 1, 0
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s)) + ".%03dZ" % ms

day0 = 1795910400.0          # 2026-11-29T00:00:00Z
session_start = day0 + 10 * 3600 + 15 * 60   # 10:15 device time
skew = 2.49                  # server ahead
ids = ["req_" + uuid() for _ in range(nids)]
ses = "ses_" + uuid()

os.makedirs(os.path.join(out, "export", "sessions"), exist_ok=True)
with open(os.path.join(out, "ids.txt"), "w") as f:
    f.write("\n".join(ids) + "\n")

# The session: one network record per id, two seconds apart.
wanted = {}   # server time -> line
with open(os.path.join(out, "export", "sessions", ses + ".jsonl"), "w") as f:
    f.write('{"type":"session","seq":0,"ts":"%s","formatVersion":1,"sessionId":"%s","launchedAt":"%s","userId":"usr_123"}\n'
            % (ts(session_start), ses, ts(session_start)))
    for k, rid in enumerate(ids):
        start = session_start + 1 + 2 * k
        wait = 0.05 + (k % 7) * 0.02
        rs, re_, ps, pe = start, start + 0.002, start + 0.002 + wait, start + 0.01 + wait
        f.write('{"type":"network","seq":%d,"ts":"%s","id":"rec_%d","source":"sdk","kind":"http","category":"call",'
                '"method":"GET","url":"https://api.palbase.studio/v1/items/%d","state":"success","statusCode":200,'
                '"duration":%.3f,"requestId":"%s","echoedRequestId":"%s","metrics":{"transactions":[{"requestStart":"%s",'
                '"requestEnd":"%s","responseStart":"%s","responseEnd":"%s"}]}}\n'
                % (k + 1, ts(pe), k, k, pe - rs, rid, rid, ts(rs), ts(re_), ts(ps), ts(pe)))
        server = re_ + wait * 0.5 + skew
        wanted[k] = (server, '{"ts": "%s", "level": "info", "request_id": "%s", "method": "GET", "path": "/v1/items/%d", '
                     '"status": 200, "duration_ms": %.1f, "user_id": "usr_123", "env": "env_prod_eu", "msg": "request completed"}\n'
                     % (ts(server), rid, k, wait * 500))

# The log: lines of other users' requests over the day; the wanted lines at their place in time.
paths = ["/v1/items", "/v1/orders", "/v1/auth/token", "/v1/flags", "/v1/catalog", "/v1/profile"]
line_len = 240
n_lines = size // line_len
step = 86400.0 / n_lines
wanted_at = sorted(wanted.values())
wi = 0
written = 0
with open(os.path.join(out, "api.log"), "w", buffering=1 << 22) as f:
    buf = []
    t = day0
    hexes = "%x" % rng.getrandbits(128 * 4096)
    for i in range(n_lines):
        while wi < len(wanted_at) and wanted_at[wi][0] <= t:
            buf.append(wanted_at[wi][1])
            wi += 1
        if i % 4096 == 0:
            hexes = ("%0" + str(32 * 4096) + "x") % rng.getrandbits(128 * 4096)
        h = hexes[(i % 4096) * 32:(i % 4096) * 32 + 32]
        rid = "req_%s-%s-4%s-a%s-%s" % (h[0:8], h[8:12], h[13:16], h[17:20], h[20:32])
        buf.append('{"ts": "%s", "level": "info", "request_id": "%s", "method": "GET", "path": "%s", "status": 200, '
                   '"duration_ms": %d.%d, "user_id": "usr_%d", "env": "env_prod_eu", "msg": "request completed"}\n'
                   % (ts(t), rid, paths[i % 6], i % 300, i % 10, i % 50000))
        t += step
        if len(buf) >= 8192:
            s = "".join(buf)
            f.write(s)
            written += len(s)
            buf = []
    for _, line in wanted_at[wi:]:
        buf.append(line)
    f.write("".join(buf))
