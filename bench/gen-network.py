#!/usr/bin/env python3
"""Writes a synthetic Palbe session file of network records for the waterfall benchmark.

usage: gen-network.py OUT.jsonl MEGABYTES [SEED]

Deterministic for a seed. Records look like the SDK's (headers, small inline bodies, metrics with
one to three transactions, some reused connections, cache hits, custom records, pending ones).
"""
import json, random, sys, uuid
from datetime import datetime, timedelta, timezone

out, mb = sys.argv[1], float(sys.argv[2])
rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
limit = int(mb * 1024 * 1024)
base = datetime(2026, 11, 29, 10, 15, 1, tzinfo=timezone.utc)
def ts(ms): return (base + timedelta(milliseconds=ms)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
sid = "ses_" + str(uuid.UUID(int=rnd.getrandbits(128)))
hosts = ["api.palbase.studio", "cdn.acme.example", "orders.acme.example"]
paths = ["/v1/auth/token", "/v1/flags", "/v1/orders/ord_{n}", "/v1/users/{u}", "/img/{n}.png", "/v1/catalog?page={n}"]
written = 0
REQ_TEXT = "{\"grant_type\":\"refresh_token\",\"refresh_token\":\"***\"}"
RESP_TEXT = json.dumps({"items": [{"id": i, "name": "item %d" % i, "price": i * 1.5} for i in range(5)]})
def body(text):
    return {"size": len(text.encode()), "contentType": "application/json", "encoding": "utf8", "text": text}
with open(out, "w") as f:
    head = {"type": "session", "seq": 0, "ts": ts(0), "formatVersion": 1, "sessionId": sid, "launchedAt": ts(0),
            "app": {"bundleId": "com.acme.shop", "version": "4.2.0", "build": "512"}, "sdk": {"name": "palbe-swift", "version": "3.1.0"}}
    line = json.dumps(head, separators=(",", ":")) + "\n"; f.write(line); written += len(line)
    seq, t = 1, 5.0
    while written < limit:
        t += rnd.uniform(0, 40)
        host = rnd.choice(hosts)
        path = rnd.choice(paths).format(n=rnd.randint(1, 99999), u=uuid.UUID(int=rnd.getrandbits(128)))
        url = f"https://{host}{path}"
        kind = "custom" if rnd.random() < 0.03 else "http"
        state = "pending" if rnd.random() < 0.005 else "success"
        rid = "req_" + str(uuid.UUID(int=rnd.getrandbits(128)))
        txs, at = [], t
        for k in range(1 if rnd.random() < 0.9 else rnd.randint(2, 3)):
            reused = rnd.random() < 0.6
            if rnd.random() < 0.05:
                tx = {"fetchStart": ts(at), "responseEnd": ts(at + 0.7), "fetchType": "localCache", "statusCode": 200}
                at += 0.7
            else:
                tx = {"fetchStart": ts(at)}
                c = at + rnd.uniform(0.1, 3)
                if not reused:
                    d = c + rnd.uniform(1, 40); tx.update(domainLookupStart=ts(c), domainLookupEnd=ts(d))
                    s = d + rnd.uniform(5, 60); e = s + rnd.uniform(10, 120)
                    tx.update(connectStart=ts(d), secureConnectionStart=ts(s), secureConnectionEnd=ts(e), connectEnd=ts(e)); c = e
                rq = c + rnd.uniform(0.1, 5); w = rq + rnd.uniform(5, 400); dl = w + rnd.uniform(0.5, 80)
                tx.update(requestStart=ts(c), requestEnd=ts(rq), responseStart=ts(w), responseEnd=ts(dl),
                          networkProtocol="h2", reusedConnection=reused, fetchType="network", remoteAddress="203.0.113.7",
                          remotePort=443, tlsVersion="1.3", statusCode=302 if k == 0 and rnd.random() < 0.05 else 200,
                          url=url, requestHeaderBytes=412, requestBodyBytes=61, responseHeaderBytes=310,
                          responseBodyBytes=rnd.randint(10, 60000))
                at = dl
            txs.append(tx)
        dur = (at - t) / 1000 + rnd.uniform(0, 0.004)
        rec = {"type": "network", "seq": seq, "ts": ts(at + 1), "id": "rec_%08x" % rnd.getrandbits(32), "source": "sdk",
               "kind": kind, "category": rnd.choice(["call", "generated", "auth", "flags", "analytics"]), "label": "call",
               "method": rnd.choice(["GET", "GET", "POST"]), "url": url, "state": state, "statusCode": 200,
               "duration": round(dur, 6), "requestId": rid, "echoedRequestId": rid,
               "request": {"headers": [{"name": "Accept", "value": "application/json"}, {"name": "Authorization", "value": "***"},
                                       {"name": "X-Request-Id", "value": rid}],
                           "body": body(REQ_TEXT)},
               "response": {"headers": [{"name": "Content-Type", "value": "application/json"}, {"name": "X-Request-Id", "value": rid}],
                            "body": body(RESP_TEXT)}}
        if kind != "custom" and state != "pending":
            rec["metrics"] = {"taskStart": ts(t), "taskEnd": ts(at), "redirectCount": len(txs) - 1, "transactions": txs}
        line = json.dumps(rec, separators=(",", ":")) + "\n"
        f.write(line); written += len(line); seq += 1; t = at if rnd.random() < 0.5 else t
print(f"{out}: {seq - 1} network records, {written} bytes")
