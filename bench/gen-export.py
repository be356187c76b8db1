#!/usr/bin/env python3
"""Generate a realistic Palbe console export for benchmarking `pbsift verify`.

    bench/gen-export.py OUT_DIR [--mib 300] [--plant N] [--seed 1]

Writes OUT_DIR/sessions/<sessionId>.jsonl (sessions of ~32 MiB each) and OUT_DIR/blobs/ for bodies
over 32 KiB, following SESSION-FORMAT.md: network records (headers with *** where the SDK redacts,
JSON bodies with ids, prices, text, nested arrays; metrics with transactions), log and event records.
With --plant N, N credentials assembled at run time are planted in random places, and their count is
written to OUT_DIR/planted.txt so a run can check recall. Deterministic for a given seed.
"""
import argparse, hashlib, json, os, random, string, uuid

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--mib", type=int, default=300)
ap.add_argument("--plant", type=int, default=0)
ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()
rnd = random.Random(a.seed)

def rid(n, alphabet=string.ascii_letters + string.digits):
    return "".join(rnd.choice(alphabet) for _ in range(n))

def ruuid():
    return str(uuid.UUID(int=rnd.getrandbits(128), version=4))

def ts(t):
    s = int(t)
    frac = int((t - s) * 1000)
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s)) + ".%03dZ" % frac

WORDS = ("order cart item price shipping address checkout payment delivery customer product review rating "
         "discount coupon inventory warehouse stock size colour small medium large blue red green fast free "
         "the a of and to in is for on with as by at from this that it be are was").split()

def sentence(n):
    return " ".join(rnd.choice(WORDS) for _ in range(n)).capitalize() + "."

def product():
    return {"id": ruuid(), "sku": "SKU-" + rid(6, string.ascii_uppercase + string.digits), "name": sentence(3)[:-1],
            "description": sentence(rnd.randint(8, 30)), "price": round(rnd.uniform(1, 500), 2), "currency": "GBP",
            "images": ["https://cdn.example.test/img/%s.jpg" % rid(24, string.hexdigits.lower()) for _ in range(rnd.randint(1, 3))],
            "tags": [rnd.choice(WORDS) for _ in range(rnd.randint(0, 5))], "inStock": rnd.random() < 0.8,
            "rating": {"average": round(rnd.uniform(1, 5), 1), "count": rnd.randint(0, 5000)},
            "updatedAt": ts(1764400000 + rnd.random() * 1e6), "etag": '"%s"' % hashlib.sha1(rid(8).encode()).hexdigest()}

def body_json(kind):
    if kind == "list":
        return {"items": [product() for _ in range(rnd.randint(3, 60))], "page": rnd.randint(1, 9), "next": "/v1/products?page=%d" % rnd.randint(2, 10)}
    if kind == "auth":
        return {"access_token": "***", "refresh_token": "***", "token_type": "Bearer", "expires_in": 3600, "user": {"id": "usr_%d" % rnd.randint(1, 999), "email": "***"}}
    if kind == "order":
        return {"order": {"id": ruuid(), "lines": [{"productId": ruuid(), "qty": rnd.randint(1, 4), "price": round(rnd.uniform(1, 99), 2)} for _ in range(rnd.randint(1, 8))],
                          "address": {"line1": sentence(3), "city": rnd.choice(["London", "Leeds", "Bristol"]), "postcode": rid(6, string.ascii_uppercase + string.digits)},
                          "note": sentence(rnd.randint(0, 20)), "createdAt": ts(1764400000 + rnd.random() * 1e6)}}
    return {"ok": True, "requestId": "req_" + ruuid()}

planted = [0]

def plant_value():
    k = rnd.randrange(6)
    if k == 0: return "ghp_" + rid(36)
    if k == 1: return "AKIA" + rid(16, string.ascii_uppercase + string.digits)
    if k == 2: return "eyJ" + rid(30, string.ascii_letters + string.digits + "_-") + ".eyJ" + rid(60, string.ascii_letters + "_-") + "." + rid(43, string.ascii_letters + "_-")
    if k == 3: return "xox" + "b-" + rid(12, string.digits) + "-" + rid(12, string.digits) + "-" + rid(24)
    if k == 4: return "sk_" + "live_" + rid(24)
    return "pbu_" + rid(43, string.ascii_letters + string.digits + "_-")

def headers(side, ctype):
    h = [{"name": "Accept", "value": "application/json"}] if side == "request" else [{"name": "Content-Type", "value": ctype}]
    if side == "request":
        h += [{"name": "Authorization", "value": "***"}, {"name": "X-Request-Id", "value": "req_" + ruuid()},
              {"name": "User-Agent", "value": "Shop/4.2.0 (iPhone; iOS 18.1.1) palbe-swift/3.1.0"},
              {"name": "Accept-Language", "value": "en-GB,en;q=0.9"}]
    else:
        h += [{"name": "X-Request-Id", "value": "req_" + ruuid()}, {"name": "ETag", "value": 'W/"%s"' % rid(32, "0123456789abcdef")},
              {"name": "Cache-Control", "value": "private, max-age=60"}, {"name": "Date", "value": "Sun, 29 Nov 2026 10:15:04 GMT"},
              {"name": "Set-Cookie", "value": "***"}]
    return h

os.makedirs(os.path.join(a.out, "sessions"), exist_ok=True)
target = a.mib << 20
written = 0
blob_bytes = 0
session_target = 32 << 20
plant_every = max(1, int(target / 2500 / max(1, a.plant))) if a.plant else 0
n_records = 0

while written < target:
    sid = "ses_" + ruuid()
    t = 1764410000.0 + rnd.random() * 1e5
    lines = [json.dumps({"type": "session", "seq": 0, "ts": ts(t), "formatVersion": 1, "sessionId": sid, "launchedAt": ts(t),
                         "app": {"bundleId": "com.acme.shop", "version": "4.2.0", "build": "512"},
                         "sdk": {"name": "palbe-swift", "version": "3.1.0"},
                         "device": {"model": "iPhone16,1", "system": "iOS 18.1.1", "locale": "en_GB", "timeZone": "Europe/London"},
                         "environmentRef": "env_prod_eu", "userId": "usr_123"}, separators=(",", ":"))]
    size = len(lines[0]) + 1
    seq = 0
    while size < session_target and written + size < target:
        seq += 1
        n_records += 1
        t += rnd.random() * 2
        r = rnd.random()
        plant = a.plant and planted[0] < a.plant and n_records % plant_every == 0
        if r < 0.6:
            kind = rnd.choice(["list", "list", "order", "auth", "ok"])
            path = {"list": "/v1/products", "order": "/v1/orders", "auth": "/v1/auth/token", "ok": "/v1/events"}[kind]
            rid_ = "req_" + ruuid()
            req_body = {"size": 0}
            if kind in ("order", "auth"):
                txt = json.dumps(body_json("auth" if kind == "auth" else "order") if kind == "order" else {"grant_type": "refresh_token", "refresh_token": "***"})
                req_body = {"size": len(txt), "contentType": "application/json", "encoding": "utf8", "text": txt}
            resp = body_json(kind)
            if plant:
                resp.setdefault("debug", {})["note"] = "copied " + plant_value()
                planted[0] += 1
            txt = json.dumps(resp)
            if len(txt) > 32768:
                data = txt.encode()
                hexd = hashlib.sha256(data).hexdigest()
                d = os.path.join(a.out, "blobs", hexd[:2])
                os.makedirs(d, exist_ok=True)
                with open(os.path.join(d, hexd), "wb") as f:
                    f.write(data)
                blob_bytes += len(data)
                resp_body = {"size": len(data), "contentType": "application/json", "blob": "sha256:" + hexd, "storedSize": len(data)}
            else:
                resp_body = {"size": len(txt), "contentType": "application/json", "encoding": "utf8", "text": txt}
            url = "https://api.palbase.studio" + path + "?client=ios&page=%d" % rnd.randint(1, 9)
            t0 = t - 0.4
            tr = {"fetchStart": ts(t0), "domainLookupStart": ts(t0 + 0.001), "domainLookupEnd": ts(t0 + 0.02), "connectStart": ts(t0 + 0.02),
                  "secureConnectionStart": ts(t0 + 0.05), "secureConnectionEnd": ts(t0 + 0.09), "connectEnd": ts(t0 + 0.09),
                  "requestStart": ts(t0 + 0.09), "requestEnd": ts(t0 + 0.1), "responseStart": ts(t0 + 0.3), "responseEnd": ts(t),
                  "networkProtocol": "h2", "reusedConnection": False, "fetchType": "network", "remoteAddress": "203.0.113.7",
                  "remotePort": 443, "tlsVersion": "1.3", "statusCode": 200, "url": url, "requestHeaderBytes": 412,
                  "requestBodyBytes": req_body["size"], "responseHeaderBytes": 310, "responseBodyBytes": resp_body["size"]}
            rec = {"type": "network", "seq": seq, "ts": ts(t), "id": "rec_" + rid(8, "0123456789abcdef"), "source": "sdk", "kind": "http",
                   "category": "auth" if kind == "auth" else "call", "label": kind, "method": "GET" if kind == "list" else "POST",
                   "url": url, "state": "success", "statusCode": 200, "duration": 0.4, "requestId": rid_, "echoedRequestId": rid_,
                   "request": {"headers": headers("request", "application/json"), "body": req_body},
                   "response": {"headers": headers("response", "application/json"), "body": resp_body},
                   "metrics": {"taskStart": ts(t0), "taskEnd": ts(t), "redirectCount": 0, "transactions": [tr]}}
        elif r < 0.93:
            rec = {"type": "log", "seq": seq, "ts": ts(t), "level": rnd.choice(["debug", "info", "notice", "warning", "error"]),
                   "label": rnd.choice(["checkout", "cart", "auth", "feed"]), "message": sentence(rnd.randint(3, 25)),
                   "metadata": {"sku": "A%d" % rnd.randint(1, 99), "userId": "usr_123", "cart": {"items": rnd.randint(0, 9), "total": round(rnd.uniform(0, 900), 2)}},
                   "source": {"file": "CheckoutView.swift", "function": "load()", "line": rnd.randint(1, 400)}}
            if plant:
                rec["message"] += " key " + plant_value()
                planted[0] += 1
        else:
            rec = {"type": "event", "seq": seq, "ts": ts(t), "name": rnd.choice(["app.background", "app.foreground", "flags.synced", "breadcrumbs.uploaded"]),
                   "attributes": {"trigger": "error", "records": rnd.randint(1, 50)}}
        line = json.dumps(rec, separators=(",", ":"))
        lines.append(line)
        size += len(line) + 1
    data = ("\n".join(lines) + "\n").encode()
    with open(os.path.join(a.out, "sessions", sid + ".jsonl"), "wb") as f:
        f.write(data)
    written += len(data)

with open(os.path.join(a.out, "planted.txt"), "w") as f:
    f.write("%d\n" % planted[0])
print("sessions %d MiB, blobs %d MiB, records %d, planted %d" % (written >> 20, blob_bytes >> 20, n_records, planted[0]))
