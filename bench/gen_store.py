#!/usr/bin/env python3
"""Generate a Palbe console store near the SDK's 128 MiB budget (and, optionally, GiBs of server logs).

    python3 bench/gen_store.py                         # -> /tmp/pbsift-bench
    python3 bench/gen_store.py --out DIR --logs-gib 1  # plus 1 GiB of platform JSON logs
    python3 bench/gen_store.py --logs-gib 1 --logs-only --gzip-logs --split-logs 4
    python3 bench/gen_store.py --out DIR4 --store-mib 508 --no-concat   # a store 4x the budget

Layout written under --out (default /tmp/pbsift-bench):

    store/                  the store: store.json, sessions/<id>.jsonl, blobs/<hh>/<sha256>
    sessions.txt            every session file, one path per line (for xargs / jq)
    all.jsonl               every session file concatenated, in sessions.txt order (--no-concat to skip)
    target-session.txt      the path of the session whose 200 request ids are planted in the logs
    ids.txt                 those 200 request ids, one per line (for `rg -F -f ids.txt`)
    logs/api.log            --logs-gib N: N GiB of platform JSON lines (SESSION-FORMAT.md §5)
    logs-gz/api.log.gz      --gzip-logs: the same bytes, gzip'd (pigz when available)
    logs-parts-gz/api.log.NN.gz  --split-logs N: the same lines cut into N rotated files, each gzip'd
    manifest.json           sizes, counts and the parameters used

Deterministic (fixed seed, fixed timestamps): the same arguments give the same bytes. Memory is
constant: the logs are streamed in chunks, and each session is written as it is built.
Stdlib only; Python >= 3.8.
"""

import argparse
import base64
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import time
import zlib
import struct

MIB = 1024 * 1024
BUDGET = 134217728
DAY0 = 1795910400  # 2026-11-29T00:00:00Z
API = "https://api.palbase.studio"
UA = "AcmeShop/4.2.0 (com.acme.shop; build:512; iOS 18.1.1) palbe-swift/3.1.0"
ENDPOINTS = [
    ("GET", "/v1/catalog?page=%d", "pb.catalog.list", "generated"),
    ("GET", "/v1/cart", "pb.cart.get", "generated"),
    ("POST", "/v1/orders/quote", "pb.orders.quote", "generated"),
    ("POST", "/v1/orders", "pb.orders.create", "generated"),
    ("GET", "/v1/orders?status=open", "pb.orders.listOpen", "generated"),
    ("GET", "/v1/recommendations?context=home", "pb.recommendations.list", "generated"),
    ("GET", "/v1/flags?keys=palbase.debug_console", "flags", "flags"),
    ("POST", "/v1/auth/token?client=ios", "auth.refresh", "auth"),
    ("POST", "/v1/analytics/events", "analytics", "analytics"),
    ("POST", "/v1/perf/traces", "perf", "perf"),
    ("GET", "/v1/profile", "pb.call", "call"),
]


# weights of the body size classes of make_bodies (60 B ... 32000 B): mean ~2.4 KB
BODY_WEIGHTS = [15, 15, 15, 12, 12, 10, 8, 5, 4, 2, 1, 1]


def ts(us):
    """RFC 3339 UTC with microseconds, from microseconds since 1970 (no datetime: fast)."""
    s, frac = divmod(us, 1000000)
    days, rem = divmod(s, 86400)
    h, rem = divmod(rem, 3600)
    m, sec = divmod(rem, 60)
    # civil-from-days (Howard Hinnant), good for any date here
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    mo = mp + 3 if mp < 10 else mp - 9
    if mo <= 2:
        y += 1
    return "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ" % (y, mo, d, h, m, sec, frac)


def uuid_from_hex(h):
    return "%s-%s-4%s-%s%s-%s" % (h[0:8], h[8:12], h[13:16], "89ab"[int(h[16], 16) & 3], h[17:20], h[20:32])


def id_pool(rng, n):
    raw = rng.getrandbits(128 * n).to_bytes(16 * n, "little").hex()
    return [uuid_from_hex(raw[i * 32:(i + 1) * 32]) for i in range(n)]


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def make_bodies(rng):
    """A pool of JSON body texts from ~60 B to just under 32 KiB."""
    sizes = [60, 120, 250, 400, 800, 1500, 3000, 6000, 12000, 20000, 28000, 32000]
    pool = []
    for target in sizes:
        for variant in range(6):
            items = []
            doc = {"page": variant + 1, "items": items}
            while not items or len(json.dumps(doc)) < target - 160:
                items.append({"id": "prd_%08x" % rng.getrandbits(32), "name": rng.choice(
                    ["Merino Sweater", "Linen Shirt", "Canvas Tote", "Wool Scarf", "Rain Jacket"]),
                    "price": {"amount": rng.randrange(500, 30000), "currency": "GBP"},
                    "stock": rng.randrange(0, 50), "tags": ["new", "sale"][: rng.randrange(0, 3)]})
            text = json.dumps(doc)
            while len(text.encode("utf-8")) > 32768:
                items.pop()
                text = json.dumps(doc)
            pool.append(text)
    return pool


class StoreWriter:
    def __init__(self, out, seed):
        self.out = out
        self.rng = random.Random(seed)
        self.bodies = make_bodies(self.rng)
        self.blob_data = []
        for i in range(12):  # a few blobs; sessions share them (one copy each)
            doc = {"export": i, "rows": [{"n": j, "sku": "SKU-%05d" % ((i * 7919 + j) % 100000),
                                          "qty": j % 7} for j in range(2000 + i * 700)]}
            self.blob_data.append(json.dumps(doc).encode("utf-8"))
        self.blob_hex = [hashlib.sha256(b).hexdigest() for b in self.blob_data]
        self.blobs_used = set()
        self.images = [base64.b64encode(bytes(self.rng.getrandbits(8) for _ in range(n))).decode("ascii")
                       for n in (900, 2400, 5200, 11000)]

    def session(self, path, session_id, start_us, n_records, target_ids=None):
        """Write one session file; returns (bytes written, request ids in order)."""
        rng = self.rng
        ids = []
        t = start_us
        lines = []
        header = {"type": "session", "seq": 0, "ts": ts(t + 2000), "formatVersion": 1, "sessionId": session_id,
                  "launchedAt": ts(t), "app": {"bundleId": "com.acme.shop", "version": "4.2.0", "build": "512"},
                  "sdk": {"name": "palbe-swift", "version": "3.1.0"},
                  "device": {"model": "iPhone16,1", "system": "iOS 18.1.1", "locale": "en_GB",
                             "timeZone": "Europe/London"}, "environmentRef": "env_prod_eu",
                  "userId": "usr_%d" % rng.randrange(100, 99999)}
        lines.append(dumps(header))
        target_left = list(target_ids or [])
        seq = 0
        size = 0
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            while seq < n_records:
                seq += 1
                t += rng.randrange(20000, 900000)
                roll = rng.random()
                if target_ids is not None:
                    # the target session: every odd record carries the next planted id, the rest are logs/events
                    roll = 0.0 if (seq % 2 == 1 and target_left) else 0.62 + roll * 0.38
                if roll < 0.62:
                    rec, rid = self.network(seq, t, target_left.pop(0) if target_ids is not None else None)
                    ids.append(rid)
                elif roll < 0.93:
                    rec = {"type": "log", "seq": seq, "ts": ts(t), "level": rng.choice(
                        ["debug", "info", "info", "notice", "warning", "error"]), "label": rng.choice(
                        ["checkout", "catalog", "cart", "auth", "images"]), "message": rng.choice(
                        ["view appeared", "cart updated", "quote received", "image cache miss",
                         "retrying request", "user tapped pay"]),
                        "source": {"file": "CheckoutView.swift", "function": "load()", "line": rng.randrange(10, 400)}}
                    if rng.random() < 0.6:
                        rec["metadata"] = {"sku": "SKU-%05d" % rng.randrange(100000), "count": rng.randrange(9),
                                           "nested": {"screen": "cart", "flags": [True, False]}}
                else:
                    rec = {"type": "event", "seq": seq, "ts": ts(t), "name": rng.choice(
                        ["flags.synced", "app.background", "app.foreground", "identity.changed"]),
                        "attributes": {"debugConsole": True}}
                lines.append(dumps(rec))
                if len(lines) >= 256:
                    chunk = "\n".join(lines) + "\n"
                    f.write(chunk)
                    size += len(chunk.encode("utf-8"))
                    lines = []
            if lines:
                chunk = "\n".join(lines) + "\n"
                f.write(chunk)
                size += len(chunk.encode("utf-8"))
        return size, ids

    def network(self, seq, t_end, rid=None):
        rng = self.rng
        method, path, label, category = ENDPOINTS[rng.randrange(len(ENDPOINTS))]
        if "%d" in path:
            path = path % rng.randrange(1, 40)
        url = API + path
        if rid is None:
            rid = "req_" + uuid_from_hex("%032x" % rng.getrandbits(128))
        new = rng.random() < 0.08
        phases = [rng.randrange(100, 3000)]  # blocked
        if new:
            phases += [rng.randrange(2000, 40000), rng.randrange(15000, 60000), rng.randrange(20000, 120000)]
        req_us = rng.randrange(300, 4000)
        wait = rng.randrange(8000, 900000)
        down = rng.randrange(200, 60000)
        total = sum(phases) + req_us + wait + down
        start = t_end - total - 1500
        c = start
        tx = {"fetchStart": ts(c)}
        c += phases[0]
        if new:
            tx["domainLookupStart"] = ts(c)
            c += phases[1]
            tx["domainLookupEnd"] = ts(c)
            tx["connectStart"] = ts(c)
            c += phases[2]
            tx["secureConnectionStart"] = ts(c)
            c += phases[3]
            tx["secureConnectionEnd"] = ts(c)
            tx["connectEnd"] = ts(c)
        tx["requestStart"] = ts(c)
        c += req_us
        tx["requestEnd"] = ts(c)
        c += wait
        tx["responseStart"] = ts(c)
        c += down
        tx["responseEnd"] = ts(c)
        status = 200 if rng.random() < 0.95 else rng.choice([201, 204, 400, 404, 500, 503])
        tx.update({"networkProtocol": "h2", "reusedConnection": not new, "fetchType": "network",
                   "remoteAddress": "203.0.113.7", "remotePort": 443, "tlsVersion": "1.3", "statusCode": status,
                   "url": url})
        roll = rng.random()
        if roll < 0.02:
            hexd = self.blob_hex[rng.randrange(len(self.blob_hex))]
            self.blobs_used.add(hexd)
            n = len(self.blob_data[self.blob_hex.index(hexd)])
            resp_body = {"size": n, "contentType": "application/json", "blob": "sha256:" + hexd, "storedSize": n}
        elif roll < 0.06:
            data = self.images[rng.randrange(len(self.images))]
            resp_body = {"size": len(base64.b64decode(data)), "contentType": "image/jpeg", "encoding": "base64",
                         "data": data}
        else:
            # mostly small bodies, now and then a large one (up to 32 KiB)
            cls = rng.choices(range(len(BODY_WEIGHTS)), BODY_WEIGHTS)[0]
            text = self.bodies[cls * 6 + rng.randrange(6)]
            resp_body = {"size": len(text.encode("utf-8")), "contentType": "application/json",
                         "encoding": "utf8", "text": text}
        if method == "POST":
            text = self.bodies[rng.randrange(12)]
            req_body = {"size": len(text.encode("utf-8")), "contentType": "application/json", "encoding": "utf8",
                        "text": text}
        else:
            req_body = {"size": 0}
        tx["requestHeaderBytes"] = 310
        tx["requestBodyBytes"] = req_body["size"]
        tx["responseHeaderBytes"] = 220
        tx["responseBodyBytes"] = resp_body["size"]
        rec = {"type": "network", "seq": seq, "ts": ts(t_end), "id": "rec_%08x" % rng.getrandbits(32),
               "source": "sdk", "kind": "http", "category": category, "label": label}
        if category == "generated":
            rec["operation"] = label
        rec.update({"method": method, "url": url, "state": "success" if status < 400 else "failure",
                    "duration": round((c - start) / 1e6, 6), "statusCode": status, "requestId": rid,
                    "request": {"headers": [{"name": "Accept", "value": "application/json"},
                                            {"name": "Authorization", "value": "***"},
                                            {"name": "User-Agent", "value": UA},
                                            {"name": "X-Request-Id", "value": rid}], "body": req_body},
                    "response": {"headers": [{"name": "Content-Type", "value": "application/json"},
                                             {"name": "Cache-Control", "value": "private, max-age=0"},
                                             {"name": "ETag", "value": "W/\"%016x\"" % rng.getrandbits(64)},
                                             {"name": "X-Request-Id", "value": rid}], "body": resp_body},
                    "echoedRequestId": rid})
        if status >= 400:
            rec["error"] = {"domain": "PalbeError", "code": status, "description": "HTTP %d" % status}
        rec["metrics"] = {"taskStart": ts(start), "taskEnd": ts(c), "redirectCount": 0, "transactions": [tx]}
        return rec, rid

    def write_blobs(self, store):
        n = 0
        for hexd, data in zip(self.blob_hex, self.blob_data):
            if hexd not in self.blobs_used:
                continue
            d = os.path.join(store, "blobs", hexd[:2])
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, hexd), "wb") as f:
                f.write(data)
            n += len(data)
        return n


def gen_store(out, target_bytes, seed, concat):
    store = os.path.join(out, "store")
    if os.path.exists(store):
        shutil.rmtree(store)
    os.makedirs(os.path.join(store, "sessions"))
    with open(os.path.join(store, "store.json"), "w") as f:
        # a store larger than the SDK's budget (--store-mib over 128) declares a budget it fits in
        budget = max(BUDGET, -(-target_bytes // MIB) * MIB)
        f.write(json.dumps({"format": "palbe-console-store", "formatVersion": 1, "budgetBytes": budget}))
    w = StoreWriter(out, seed)
    rng = random.Random(seed + 1)
    blob_reserve = sum(len(b) for b in w.blob_data)
    total = 0
    paths = []
    target_path = None
    target_ids = None
    i = 0
    t = (DAY0 + 6 * 3600) * 1000000
    records = 0
    while True:
        remaining = target_bytes - total - blob_reserve
        if i > 0 and remaining < 200 * (total / records):
            break
        sid = "ses_" + uuid_from_hex("%032x" % rng.getrandbits(128))
        path = os.path.join(store, "sessions", sid + ".jsonl")
        if i == 0:
            # the target session for correlate: exactly 200 request ids, at 10:15 on the day
            planned = ["req_" + uuid_from_hex("%032x" % rng.getrandbits(128)) for _ in range(200)]
            start = (DAY0 + 10 * 3600 + 15 * 60) * 1000000
            size, ids = w.session(path, sid, start, 400, target_ids=planned)
            ids = [x for x in ids if x in set(planned)]
            assert len(ids) == 200, len(ids)
            target_path, target_ids = path, ids
            n = 400
        else:
            n = rng.randrange(400, 2000)
            # the last session is cut so the store stays under the target (and the budget)
            n = min(n, int(remaining * 0.95 / (total / records)))
            size, _ = w.session(path, sid, t, n)
            t += rng.randrange(60, 900) * 1000000
        records += n
        total += size
        paths.append(path)
        i += 1
    blob_bytes = w.write_blobs(store)
    paths.sort()
    with open(os.path.join(out, "sessions.txt"), "w") as f:
        f.write("".join(p + "\n" for p in paths))
    if concat:
        with open(os.path.join(out, "all.jsonl"), "wb") as dst:
            for p in paths:
                with open(p, "rb") as src:
                    shutil.copyfileobj(src, dst, 4 * MIB)
    with open(os.path.join(out, "target-session.txt"), "w") as f:
        f.write(target_path + "\n")
    with open(os.path.join(out, "ids.txt"), "w") as f:
        f.write("".join(x + "\n" for x in target_ids))
    return {"sessions": len(paths), "records": records, "sessionBytes": total, "blobBytes": blob_bytes,
            "storeBytes": total + blob_bytes, "targetSession": target_path, "ids": len(target_ids)}


def api_line_parts(rng):
    paths = [("GET", "/v1/catalog", 200), ("GET", "/v1/cart", 200), ("GET", "/v1/flags", 200),
             ("POST", "/v1/auth/token", 200), ("POST", "/v1/analytics/events", 202),
             ("GET", "/v1/recommendations", 200), ("POST", "/v1/orders/quote", 200), ("POST", "/v1/orders", 201),
             ("GET", "/v1/profile", 200), ("GET", "/v1/orders", 404)]
    return paths


def gen_logs(out, gib, seed, ids):
    """Stream `gib` GiB of platform JSON lines to logs/api.log; plant each id twice, spread out."""
    logs = os.path.join(out, "logs")
    os.makedirs(logs, exist_ok=True)
    target = int(gib * 1024 * MIB)
    rng = random.Random(seed + 2)
    # everything after the timestamp, precomputed: 2^17 distinct request ids, recycled in a stride
    # (an id recurs every 131072 lines, ~30 MiB apart; the planted ids never do)
    n_tails = 1 << 17
    pool = id_pool(rng, n_tails)
    users = ["usr_%d" % rng.randrange(100, 999999) for _ in range(4096)]
    paths = api_line_parts(rng)
    tails = []
    for k in range(n_tails):
        method, p, status = paths[rng.randrange(len(paths))]
        tails.append('Z", "level": "info", "request_id": "req_%s", "method": "%s", "path": "%s", "status": %d, '
                     '"duration_ms": %.1f, "user_id": "%s", "env": "env_prod_eu", "msg": "request completed"}\n'
                     % (pool[k], method, p, status, rng.random() * 400, users[k & 4095]))
    del pool
    approx_line = sum(len(t) for t in tails[:1000]) // 1000 + 34
    n_lines = max(1000, target // approx_line)
    # where the planted lines go: the session's window is 10:15-10:30 server time; place each
    # id's two lines (a warning and the completion) at the line index matching its time.
    step_us = (86400 * 1000000) // n_lines
    planted = {}
    for k, rid in enumerate(ids):
        at_us = (10 * 3600 + 15 * 60 + 2) * 1000000 + k * 4300000 + rng.randrange(0, 2000000)
        idx = at_us // step_us
        planted.setdefault(idx, []).append(("warning", rid))
        planted.setdefault(idx + 3 + rng.randrange(40), []).append(("info", rid))
    path = os.path.join(logs, "api.log")
    written = 0
    day_us = DAY0 * 1000000
    i = 0
    with open(path, "wb") as f:
        while written < target:
            # one block: the lines of one second of server time at most, 4 MiB at most
            buf = []
            size = 0
            while size < 4 * MIB:
                t = i * step_us
                sec = t // 1000000
                prefix = '{"ts": "' + ts(day_us + sec * 1000000)[:20]
                while t // 1000000 == sec and size < 4 * MIB:
                    tail = tails[(i * 7919) & (n_tails - 1)]
                    line = "%s%06d%s" % (prefix, t % 1000000, tail)
                    buf.append(line)
                    size += len(line)
                    if i in planted:
                        for level, rid in planted[i]:
                            extra = ('%s%06dZ", "level": "%s", "request_id": "%s", "method": "POST", '
                                     '"path": "/v1/orders", "status": 200, "duration_ms": 812.4, '
                                     '"user_id": "usr_123", "env": "env_prod_eu", "msg": "%s"}\n'
                                     % (prefix, t % 1000000, level, rid,
                                        "upstream slow" if level == "warning" else "request completed"))
                            buf.append(extra)
                            size += len(extra)
                    i += 1
                    t = i * step_us
                if written + size >= target:
                    break
            data = "".join(buf).encode("ascii")
            f.write(data)
            written += len(data)
    done = set(rid for idx, v in planted.items() if idx < i for _, rid in v)
    return {"logBytes": written, "logLines": i, "plantedMissing": len(set(ids) - done), "logFile": path}


def gzip_file(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    pigz = shutil.which("pigz")
    with open(dst, "wb") as out:
        if pigz:
            subprocess.check_call([pigz, "-c", "-n", "-6", src], stdout=out)
            return "pigz"
        # stdlib fallback: deterministic header (mtime 0, no name), streamed
        out.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff")
        co = zlib.compressobj(6, zlib.DEFLATED, -15, 9)
        crc, n = 0, 0
        with open(src, "rb") as f:
            while True:
                chunk = f.read(4 * MIB)
                if not chunk:
                    break
                crc = zlib.crc32(chunk, crc)
                n += len(chunk)
                out.write(co.compress(chunk))
        out.write(co.flush())
        out.write(struct.pack("<II", crc & 0xFFFFFFFF, n & 0xFFFFFFFF))
        return "zlib"


def split_logs(src, dst_dir, parts):
    """Cut `src` into `parts` files at line boundaries (api.log.00 is the oldest), each gzip'd."""
    if os.path.exists(dst_dir):
        shutil.rmtree(dst_dir)
    os.makedirs(dst_dir)
    total = os.path.getsize(src)
    names = []
    with open(src, "rb") as f:
        for k in range(parts):
            tmp = os.path.join(dst_dir, "api.log.%02d" % k)
            end = total if k == parts - 1 else total * (k + 1) // parts
            with open(tmp, "wb") as out:
                while f.tell() < end:
                    chunk = f.read(min(4 * MIB, end - f.tell()))
                    if not chunk:
                        break
                    out.write(chunk)
                if k < parts - 1:
                    out.write(f.readline())  # finish the line the cut fell in
            gzip_file(tmp, tmp + ".gz")
            os.remove(tmp)
            names.append(tmp + ".gz")
    return names


def main(argv):
    ap = argparse.ArgumentParser(description="Generate a Palbe console store near the 128 MiB budget, "
                                             "and optionally GiBs of platform JSON server logs.")
    ap.add_argument("--out", default="/tmp/pbsift-bench", help="output folder (default /tmp/pbsift-bench)")
    ap.add_argument("--store-mib", type=float, default=127.0,
                    help="target store size in MiB, sessions + blobs (default 127: just under the budget)")
    ap.add_argument("--seed", type=int, default=128)
    ap.add_argument("--logs-gib", type=float, default=0.0, help="also write N GiB of server logs (default 0)")
    ap.add_argument("--gzip-logs", action="store_true", help="also write logs-gz/api.log.gz (pigz if present)")
    ap.add_argument("--split-logs", type=int, default=0, metavar="N",
                    help="also write the logs as N rotated gzip files in logs-parts-gz/ (default 0: none)")
    ap.add_argument("--logs-only", action="store_true", help="keep an existing store; (re)write only the logs")
    ap.add_argument("--no-concat", action="store_true", help="don't write all.jsonl")
    args = ap.parse_args(argv)
    out = args.out
    os.makedirs(out, exist_ok=True)
    manifest_path = os.path.join(out, "manifest.json")
    manifest = {}
    if args.logs_only and os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
    t0 = time.time()
    if not args.logs_only or not os.path.exists(os.path.join(out, "ids.txt")):
        manifest = gen_store(out, int(args.store_mib * MIB), args.seed, not args.no_concat)
        manifest["storeSeconds"] = round(time.time() - t0, 2)
        print("store: %d sessions, %d records, %.1f MiB (sessions %.1f MiB, blobs %.1f MiB) in %.1fs -> %s/store"
              % (manifest["sessions"], manifest["records"], manifest["storeBytes"] / MIB,
                 manifest["sessionBytes"] / MIB, manifest["blobBytes"] / MIB, manifest["storeSeconds"], out))
    if args.logs_gib > 0:
        t1 = time.time()
        with open(os.path.join(out, "ids.txt")) as f:
            ids = [x.strip() for x in f if x.strip()]
        info = gen_logs(out, args.logs_gib, args.seed, ids)
        info["logsSeconds"] = round(time.time() - t1, 2)
        manifest.update(info)
        print("logs: %.2f GiB, %d lines, %d ids planted twice each, in %.1fs -> %s"
              % (info["logBytes"] / (1024 * MIB), info["logLines"], len(ids) - info["plantedMissing"],
                 info["logsSeconds"], info["logFile"]))
        if args.gzip_logs:
            t2 = time.time()
            how = gzip_file(info["logFile"], os.path.join(out, "logs-gz", "api.log.gz"))
            manifest["gzipLogBytes"] = os.path.getsize(os.path.join(out, "logs-gz", "api.log.gz"))
            print("logs-gz: %.1f MiB (%s) in %.1fs" % (manifest["gzipLogBytes"] / MIB, how, time.time() - t2))
        if args.split_logs > 0:
            t3 = time.time()
            names = split_logs(info["logFile"], os.path.join(out, "logs-parts-gz"), args.split_logs)
            manifest["splitLogs"] = len(names)
            print("logs-parts-gz: %d files in %.1fs" % (len(names), time.time() - t3))
    manifest["args"] = {"storeMib": args.store_mib, "seed": args.seed, "logsGib": args.logs_gib,
                        "splitLogs": args.split_logs}
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=2, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
