#!/usr/bin/env python3
"""Deterministic generator for pbsift's bundled samples.

    python3 samples/generate.py            # rewrites samples/ in place
    python3 samples/generate.py --out DIR  # writes the same tree under DIR

Every byte is a function of this file: fixed seeds, fixed timestamps, gzip with mtime 0, zip
entries with a fixed date, tar entries with a fixed mtime/uid/gid/uname. Running it twice gives
byte-identical output (same Python and zlib). Stdlib only; Python >= 3.8.

What it writes (see docs/samples.md for the story and the expected findings):

    export-clean/PalbeConsole/        one clean session, folder form (no leak, no defect)
    export-incident.zip               the support case: a checkout that failed (deflate)
    export-incident.tar.gz            the same export tree as a tar.gz (no PalbeConsole/ on top)
    ses_<uuid>.jsonl                  a bare session file (the same user's previous launch)
    ses_<uuid>.jsonl.gz               a bare gzip'd session file (two gzip members; signed out)
    debug-tail.jsonl                  records without a header, as `palbase debug tail --json` prints
                                      them: the standard-input kind (`pbsift inspect - < …`)
    damaged/                          small damaged exports, one defect each
    logs/                             the day's server logs for the incident session
    EXPECTED-LEAKS.json               every planted credential: session, seq, location, rule
    damaged/EXPECTED-FINDINGS.json    the finding each damaged export should produce

The credentials planted in the incident export are synthetic (they spell EXAMPLE / FAKE / 0000)
and are assembled here from pieces, so this file holds no literal token.
"""

import argparse
import base64
import datetime
import gzip
import hashlib
import io
import json
import os
import random
import shutil
import struct
import sys
import tarfile
import zipfile
import zlib

# ---------------------------------------------------------------------------------------------
# Fixed clock and helpers
# ---------------------------------------------------------------------------------------------

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
ZIP_DATE = (2026, 11, 29, 10, 31, 6)
STORE_BUDGET = 134217728
INLINE_LIMIT = 32768

APP = {"bundleId": "com.acme.shop", "version": "4.2.0", "build": "512"}
SDK = {"name": "palbe-swift", "version": "3.1.0"}
ENV = "env_prod_eu"
API = "https://api.palbase.studio"
API_ADDR = "203.0.113.7"
DEVICE_IP = "198.51.100.23"
USER_AGENT = "AcmeShop/4.2.0 (com.acme.shop; build:512; iOS 18.1.1) palbe-swift/3.1.0"

# Server clocks run ahead of the device by this much (seconds).
SERVER_SKEW_US = 2487000


def us_at(y, mo, d, h, mi, s, us=0):
    """Microseconds since 1970 for a UTC wall time."""
    dt = datetime.datetime(y, mo, d, h, mi, s, us, tzinfo=datetime.timezone.utc)
    delta = dt - EPOCH
    return (delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds


TAR_MTIME = us_at(2026, 11, 29, 10, 31, 7) // 1000000


def to_dt(us):
    return EPOCH + datetime.timedelta(microseconds=us)


def rfc3339(us, digits=6):
    """RFC 3339 UTC with a fraction of `digits` digits (3 or 6)."""
    dt = to_dt(us)
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + "." + ("%06d" % dt.microsecond)[:digits] + "Z"


def http_date(us):
    return to_dt(us).strftime("%a, %d %b %Y %H:%M:%S GMT")


def uuid4(rng):
    n = rng.getrandbits(128)
    n &= ~(0xF000 << 64)
    n |= 0x4000 << 64
    n &= ~(0xC000 << 48)
    n |= 0x8000 << 48
    h = "%032x" % n
    return "%s-%s-%s-%s-%s" % (h[0:8], h[8:12], h[12:16], h[16:20], h[20:32])


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


def compact(obj):
    """A session-file line: compact JSON, key order as built, UTF-8 kept."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def spaced(obj):
    """JSON as the examples' manifests, bodies and server logs print it (", " and ": ")."""
    return json.dumps(obj, ensure_ascii=False)


def gz(data):
    """One gzip member, byte-identical on every Python: mtime 0, no name, XFL 2, OS 255 (unknown).

    (gzip.compress writes OS 3 on some Python versions and 255 on others.)
    """
    co = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    raw = co.compress(data) + co.flush()
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + raw
            + struct.pack("<II", zlib.crc32(data) & 0xFFFFFFFF, len(data) & 0xFFFFFFFF))


def preview(value):
    """Same as SiftCore's SecretMask.preview: at most 4 leading chars (a quarter of a short value)."""
    shown = min(4, len(value) // 4)
    head = "".join("?" if (ord(c) < 0x20 or ord(c) == 0x7F) else c for c in value[:shown])
    return "%s\u2026(%d chars)" % (head, len(value))


def fingerprint(value):
    """Same as SiftCore's SecretMask.fingerprint."""
    return "sha256:" + sha256_hex(value.encode("utf-8"))[:16]


# ---------------------------------------------------------------------------------------------
# Synthetic credentials, assembled from pieces (never a literal token in this file)
# ---------------------------------------------------------------------------------------------

def b64url(data):
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


FAKE = "EXAMPLE" + "0" + "FAKE" + "0"
SECRETS = {
    # header X-Api-Key with a value (the contract names x-api-key)
    "api_key": FAKE + "API" + "0KEY" + "0000",
    # query param access_token in a transaction url
    "access_token": FAKE + "ACCESS" + "0TOKEN" + "0000",
    # JSON body "password": "hunter" + "2"
    "json_password": "hun" + "ter" + "2",
    # form-urlencoded password
    "form_password": "Example-" + "Fake-" + "Pass-" + "0000",
    # Location header ?code=
    "auth_code": FAKE + "AUTH" + "CODE0" + "000",
    # URL userinfo password
    "userinfo_password": FAKE + "PA" + "SS",
    # JWT in a log message
    "jwt": ".".join([
        b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode()),
        b64url(json.dumps({"sub": "usr_123", "sample": "pbsift"}, separators=(",", ":")).encode()),
        b64url(b"sample-" + b"signature"),
    ]),
    # AWS access key id in an error description: AKIA + 16
    "aws_key_id": "AK" + "IA" + "EXAMPLE" + "0FAKE0" + "KEY",
    # Palbase user token in a blob JSON body: pbu_ + 43 base64url chars
    "pbu_token": "pb" + "u_" + ((FAKE + "TOKEN" + "0") * 3)[:43],
    # Bearer token inside a gzip'd app-recorded body
    "bearer": FAKE + "BEARER" + "0TOKEN" + "0000",
}
assert len(SECRETS["aws_key_id"]) == 20
assert len(SECRETS["pbu_token"]) == 4 + 43
assert SECRETS["jwt"].endswith(b64url(b"sample-signature"))


# ---------------------------------------------------------------------------------------------
# Session builder
# ---------------------------------------------------------------------------------------------

def body_none():
    return {"size": 0}


def body_text(text, content_type="application/json"):
    data = text.encode("utf-8")
    return {"size": len(data), "contentType": content_type, "encoding": "utf8", "text": text}


def body_json(obj, content_type="application/json"):
    return body_text(spaced(obj), content_type)


def body_binary(data, content_type):
    return {"size": len(data), "contentType": content_type, "encoding": "base64",
            "data": base64.b64encode(data).decode("ascii")}


class Session:
    """Collects records with their creation time, then numbers them in write order."""

    def __init__(self, rng, launched_us, digits=6, user_id=None, device=None):
        self.rng = rng
        self.launched = launched_us
        self.digits = digits
        self.user_id = user_id
        self.session_id = "ses_" + uuid4(rng)
        self.device = device or {"model": "iPhone16,1", "system": "iOS 18.1.1", "locale": "en_GB",
                                 "timeZone": "Europe/London"}
        self.items = []       # (ts_us, order, record-without-type/seq/ts, type)
        self.blobs = {}       # hex -> bytes
        self.requests = []    # side info for the server logs
        self._order = 0

    # -- time ----------------------------------------------------------------------------------
    def at(self, seconds):
        """Device time `seconds` after launch, in microseconds (ms-rounded for digits=3)."""
        us = self.launched + int(round(seconds * 1000000))
        if self.digits == 3:
            us = (us // 1000) * 1000
        return us

    def ts(self, us):
        return rfc3339(us, self.digits)

    def ms(self, value):
        """A phase length in microseconds from milliseconds (whole ms for digits=3)."""
        if self.digits == 3:
            return int(round(value)) * 1000
        return int(round(value * 1000))

    def _add(self, us, rtype, fields):
        self.items.append((us, self._order, rtype, fields))
        self._order += 1

    # -- records ---------------------------------------------------------------------------------
    def event(self, seconds, name, attributes=None):
        self._add(self.at(seconds), "event", {"name": name, "attributes": attributes or {}})

    def log(self, seconds, level, label, message, metadata=None, source=None, error=None):
        fields = {"level": level, "label": label, "message": message}
        if source:
            fields["source"] = {"file": source[0], "function": source[1], "line": source[2]}
        if metadata is not None:
            fields["metadata"] = metadata
        if error is not None:
            fields["error"] = error
        self._add(self.at(seconds), "log", fields)

    def raw(self, seconds, rtype, fields):
        """Any record kind, fields as given (frames, unknown kinds)."""
        self._add(self.at(seconds), rtype, fields)

    def blob_body(self, data, content_type):
        hexd = sha256_hex(data)
        self.blobs[hexd] = data
        return {"size": len(data), "contentType": content_type, "blob": "sha256:" + hexd,
                "storedSize": len(data)}

    def request_id(self):
        return "req_" + uuid4(self.rng)

    def network(self, seconds, method, url, *, source="sdk", kind="http", category="call", label=None,
                operation=None, txns=None, state="success", status=None, req_headers=None, req_body=None,
                resp_headers=None, resp_body=None, request_id=None, echoed=None, error=None,
                end_after=None, metrics=True, http_version=None, server=None, create_delay_ms=2.0, bare=False):
        """One network record. `txns` are phase specs (ms); see `_transactions`.

        `request_id`: True to mint one (added as X-Request-Id), a string to use it, None for none.
        `echoed`: None (same as minted when a response arrived), False (no echo), or a string.
        `server`: dict for the server logs (see Incident), or None when no server line.
        """
        start = self.at(seconds)
        rid = None
        if request_id is True:
            rid = self.request_id()
        elif isinstance(request_id, str):
            rid = request_id
        has_response = resp_headers is not None
        if echoed is None and has_response and rid is not None:
            echoed = rid
        if echoed is False:
            echoed = None

        req_headers = list(req_headers or [])
        if rid is not None:
            req_headers.append({"name": "X-Request-Id", "value": rid})
        if has_response and echoed is not None:
            resp_headers = list(resp_headers) + [{"name": "X-Request-Id", "value": echoed}]

        rec = {"id": "rec_%08x" % self.rng.getrandbits(32), "source": source, "kind": kind,
               "category": category, "label": label or category}
        if operation:
            rec["operation"] = operation
        rec["method"] = method
        rec["url"] = url

        tx_list, task_end, tx_times = ([], None, [])
        if txns:
            tx_list, task_end, tx_times = self._transactions(start, txns, req_headers, req_body,
                                                             resp_headers, resp_body)
        if end_after is not None:
            task_end = start + self.ms(end_after)
        if task_end is None:
            task_end = start
        rec["state"] = state
        if state != "pending":
            rec["duration"] = round((task_end - start) / 1000000.0, 6)
        if status is not None:
            rec["statusCode"] = status
        if rid is not None:
            rec["requestId"] = rid
        if bare:
            # a `custom` record built by hand: method, url, statusCode, duration, state (and error)
            if error is not None:
                rec["error"] = error
            self._add(task_end + self.ms(create_delay_ms), "network", rec)
            self.requests.append({"record": rec, "start": start, "end": task_end, "tx": [], "server": None,
                                  "requestId": None, "echoed": None})
            return rec
        request = {}
        if http_version:
            request["httpVersion"] = http_version
        request["headers"] = req_headers
        request["body"] = req_body if req_body is not None else body_none()
        rec["request"] = request
        if has_response:
            response = {}
            if http_version:
                response["httpVersion"] = http_version
            response["headers"] = resp_headers
            response["body"] = resp_body if resp_body is not None else body_none()
            rec["response"] = response
        if echoed is not None:
            rec["echoedRequestId"] = echoed
        if error is not None:
            rec["error"] = error
        if metrics and tx_list:
            rec["metrics"] = {"taskStart": self.ts(start), "taskEnd": self.ts(task_end),
                              "redirectCount": max(0, len(tx_list) - 1) if txns and all(
                                  t.get("redirect", True) for t in txns[:-1]) else 0,
                              "transactions": tx_list}
        created = (task_end if state != "pending" else start) + self.ms(create_delay_ms)
        self._add(created, "network", rec)
        self.requests.append({"record": rec, "start": start, "end": task_end, "tx": tx_times,
                              "server": server, "requestId": rid, "echoed": echoed})
        return rec

    def _transactions(self, start, txns, req_headers, req_body, resp_headers, resp_body):
        out = []
        times = []
        t = start
        for i, spec in enumerate(txns):
            last = i == len(txns) - 1
            t += self.ms(spec.get("gap", 0))
            tx = {}
            tm = {}
            tm["fetchStart"] = t
            if spec.get("fetch") == "localCache":
                tm["responseEnd"] = t + self.ms(spec.get("cache", 1.0))
                t = tm["responseEnd"]
            else:
                t += self.ms(spec.get("blocked", 1.0))
                if spec.get("dns") is not None:
                    tm["domainLookupStart"] = t
                    t += self.ms(spec["dns"])
                    tm["domainLookupEnd"] = t
                if spec.get("tcp") is not None:
                    tm["connectStart"] = t
                    t += self.ms(spec["tcp"])
                    if spec.get("tls") is not None:
                        tm["secureConnectionStart"] = t
                        t += self.ms(spec["tls"])
                        tm["secureConnectionEnd"] = t
                    tm["connectEnd"] = t
                tm["requestStart"] = t
                t += self.ms(spec.get("req", 1.0))
                tm["requestEnd"] = t
                if spec.get("wait") is not None:
                    t += self.ms(spec["wait"])
                    tm["responseStart"] = t
                    t += self.ms(spec.get("down", 1.0))
                    tm["responseEnd"] = t
            order = ["fetchStart", "domainLookupStart", "domainLookupEnd", "connectStart",
                     "secureConnectionStart", "secureConnectionEnd", "connectEnd", "requestStart",
                     "requestEnd", "responseStart", "responseEnd"]
            for k in order:
                if k in tm:
                    tx[k] = self.ts(tm[k])
            fetch = spec.get("fetch", "network")
            if fetch == "network":
                tx["networkProtocol"] = spec.get("proto", "h2")
                tx["reusedConnection"] = spec.get("tcp") is None
            tx["fetchType"] = fetch
            if fetch == "network":
                tx["remoteAddress"] = spec.get("addr", API_ADDR)
                tx["remotePort"] = spec.get("port", 443)
                if spec.get("tlsv", "1.3"):
                    tx["tlsVersion"] = spec.get("tlsv", "1.3")
            if spec.get("status") is not None:
                tx["statusCode"] = spec["status"]
            tx["url"] = spec["url"]
            if fetch == "network":
                hdr = sum(len(h["name"]) + len(h["value"]) + 4 for h in req_headers) + 40
                tx["requestHeaderBytes"] = hdr
                tx["requestBodyBytes"] = (req_body or {}).get("size", 0) if (i == 0 or not spec.get("redirect", True)) else 0
                if "responseStart" in tm:
                    rh = resp_headers or []
                    tx["responseHeaderBytes"] = (sum(len(h["name"]) + len(h["value"]) + 4 for h in rh) + 20
                                                 if last else spec.get("redirectHeaderBytes", 180))
                    tx["responseBodyBytes"] = (resp_body or {}).get("size", 0) if last else 0
            out.append(tx)
            times.append(tm)
        return out, t, times

    # -- output ----------------------------------------------------------------------------------
    def header(self):
        h = {"type": "session", "seq": 0, "ts": self.ts(self.launched + self.ms(2.0)), "formatVersion": 1,
             "sessionId": self.session_id, "launchedAt": self.ts(self.launched), "app": dict(APP),
             "sdk": dict(SDK), "device": dict(self.device), "environmentRef": ENV}
        if self.user_id:
            h["userId"] = self.user_id
        return h

    def records(self):
        """Header and records in write order, each a dict with type, seq, ts first."""
        out = [self.header()]
        for seq, (us, _, rtype, fields) in enumerate(sorted(self.items, key=lambda x: (x[0], x[1])), 1):
            rec = {"type": rtype, "seq": seq, "ts": self.ts(us)}
            rec.update(fields)
            out.append(rec)
        return out

    def lines(self):
        return [compact(r) for r in self.records()]

    def jsonl(self):
        return ("\n".join(self.lines()) + "\n").encode("utf-8")

    def seq_of(self, rec):
        for r in self.records():
            if r.get("id") == rec["id"] and r["type"] == "network":
                return r["seq"]
        raise KeyError(rec["id"])

    def end_us(self):
        return max(us for us, _, _, _ in self.items)


# ---------------------------------------------------------------------------------------------
# Common request shapes
# ---------------------------------------------------------------------------------------------

def sdk_req_headers(auth=True, content_type=None, extra=None):
    h = [{"name": "Accept", "value": "application/json"},
         {"name": "Accept-Language", "value": "en-GB"}]
    if auth:
        h.append({"name": "Authorization", "value": "***"})
    if content_type:
        h.append({"name": "Content-Type", "value": content_type})
    h.append({"name": "User-Agent", "value": USER_AGENT})
    h.extend(extra or [])
    return h


def api_resp_headers(server_us, content_type="application/json", extra=None):
    h = [{"name": "Content-Type", "value": content_type},
         {"name": "Date", "value": http_date(server_us)},
         {"name": "Server", "value": "palbase"}]
    h.extend(extra or [])
    return h


def api_tx(url, status, wait, *, new=False, dns=18.0, tcp=31.0, tls=42.0, req=2.0, down=3.0, blocked=1.0, **kw):
    spec = {"url": url, "status": status, "wait": wait, "req": req, "down": down, "blocked": blocked}
    if new:
        spec.update({"dns": dns, "tcp": tcp, "tls": tls})
    spec.update(kw)
    return spec


def catalog_payload(rng, page, count):
    items = []
    for i in range(count):
        items.append({"id": "prd_" + uuid4(rng), "sku": "SKU-%05d" % rng.randrange(100000),
                      "name": rng.choice(["Merino", "Linen", "Canvas", "Cotton", "Wool"]) + " "
                      + rng.choice(["Sweater", "Shirt", "Tote", "Scarf", "Jacket", "Cap"]) + " "
                      + str(i + 1 + (page - 1) * count),
                      "price": {"amount": rng.randrange(900, 24900), "currency": "GBP"},
                      "image": "https://cdn.acme.example/img/p/%d.jpg" % (1000 + i + page * 100),
                      "etag": "\"%s\"" % sha256_hex(("p%d-%d" % (page, i)).encode())[:24],
                      "stock": rng.randrange(0, 40), "tags": rng.sample(["new", "sale", "eco", "gift", "bf26"], 2)})
    return spaced({"page": page, "pageSize": count, "total": 480, "items": items}).encode("utf-8")


def jpeg_bytes(rng, n):
    return b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00H\x00H\x00\x00" + bytes(
        rng.getrandbits(8) for _ in range(n)) + b"\xff\xd9"


# ---------------------------------------------------------------------------------------------
# The incident session: a checkout that failed
# ---------------------------------------------------------------------------------------------

class Incident:
    """Builds the incident session, its planted leaks and the server's view of it."""

    def __init__(self):
        self.rng = random.Random(1129)
        launched = us_at(2026, 11, 29, 10, 15, 1, 2000)
        self.s = Session(self.rng, launched, digits=6, user_id="usr_123")
        self.leaks = []     # (record dict or None, location, rule, secret key, contract, extra)
        self.build()

    def leak(self, rec, location, rule, key, contract, where="session", note="", value=None, severity=None):
        self.leaks.append({"rec": rec, "location": location, "rule": rule, "key": key, "contract": contract,
                           "where": where, "note": note, "value": value})

    def build(self):
        s, rng = self.s, self.rng
        s.event(0.028, "recording.started")
        s.log(0.031, "info", "app", "launch", metadata={"coldStart": True, "build": "512"},
              source=("AcmeShopApp.swift", "init()", 41))

        # 1. auth refresh: new connection to the API
        s.network(0.040, "POST", API + "/v1/auth/token?client=ios", category="auth", label="auth.refresh",
                  request_id=True,
                  req_headers=sdk_req_headers(content_type="application/json"),
                  req_body=body_json({"grant_type": "refresh_token", "refresh_token": "***"}),
                  resp_headers=api_resp_headers(s.at(0.3) + SERVER_SKEW_US,
                                                extra=[{"name": "Set-Cookie", "value": "***"}]),
                  resp_body=body_json({"access_token": "***", "token_type": "Bearer", "expires_in": 3600,
                                       "refresh_token": "***"}),
                  status=200, txns=[api_tx(API + "/v1/auth/token?client=ios", 200, 121.4, new=True,
                                           dns=18.2, tcp=31.1, tls=42.6, req=3.1, down=4.0, blocked=2.1)],
                  server={"ms": 38.2})
        # 2. flags (reused connection)
        s.network(0.352, "GET", API + "/v1/flags?keys=palbase.debug_console,palbase.force_update",
                  category="flags", label="flags", request_id=True, req_headers=sdk_req_headers(),
                  resp_headers=api_resp_headers(s.at(0.4) + SERVER_SKEW_US),
                  resp_body=body_json({"flags": {"palbase.debug_console": True, "palbase.force_update": False}}),
                  status=200, txns=[api_tx(API + "/v1/flags?keys=palbase.debug_console,palbase.force_update",
                                           200, 31.7, req=1.2, down=1.5)],
                  server={"ms": 11.4})
        s.event(0.412, "flags.synced", {"debugConsole": True})

        # 3. the auth session: a large JSON body in a blob, with a pbu_ user token inside (silent leak)
        session_doc = {"session": {"id": "sess_" + uuid4(rng), "userId": "usr_123",
                                   "userToken": SECRETS["pbu_token"], "expiresAt": "2026-11-29T11:15:01Z",
                                   "mfa": False},
                       "devices": [], "recentActivity": []}
        for i in range(180):
            session_doc["devices"].append({"id": "dev_" + uuid4(rng), "model": rng.choice(
                ["iPhone16,1", "iPhone15,3", "iPad14,1", "Mac15,6"]), "lastSeen": "2026-11-%02dT%02d:%02d:00Z" % (
                1 + i % 28, i % 24, (i * 7) % 60), "trusted": i % 3 == 0})
        for i in range(240):
            session_doc["recentActivity"].append({"at": "2026-11-%02dT%02d:%02d:%02dZ" % (
                1 + i % 28, (i * 5) % 24, (i * 11) % 60, (i * 13) % 60), "kind": rng.choice(
                ["login", "refresh", "order", "view"]), "ip": "198.51.100.%d" % (i % 250 + 1)})
        session_bytes = compact(session_doc).encode("utf-8")
        assert len(session_bytes) > INLINE_LIMIT
        sess_body = s.blob_body(session_bytes, "application/json")
        rec = s.network(0.448, "GET", API + "/v1/auth/session", category="auth", label="auth.session",
                        request_id=True, req_headers=sdk_req_headers(),
                        resp_headers=api_resp_headers(s.at(0.5) + SERVER_SKEW_US),
                        resp_body=sess_body, status=200,
                        txns=[api_tx(API + "/v1/auth/session", 200, 88.3, req=1.0, down=22.7)],
                        server={"ms": 41.9})
        self.leak(rec, "response.body $.session.userToken (blob sha256:%s)" % sess_body["blob"][7:],
                  "secret.palbase-user-token", "pbu_token", "silent", where="blob",
                  note="a pbu_ token under a name the contract does not list (userToken), in a blob body")

        s.log(0.61, "debug", "catalog", "HomeView appeared", source=("HomeView.swift", "body", 27))

        # 4. catalog page 1: blob, fetched again later with identical bytes (one blob, two records)
        catalog = catalog_payload(rng, 1, 120)
        assert len(catalog) > INLINE_LIMIT
        self.catalog_body = s.blob_body(catalog, "application/json")
        s.network(0.630, "GET", API + "/v1/catalog?page=1", category="generated", label="pb.catalog.list",
                  operation="pb.catalog.list", request_id=True, req_headers=sdk_req_headers(),
                  resp_headers=api_resp_headers(s.at(0.9) + SERVER_SKEW_US, extra=[
                      {"name": "ETag", "value": "W/\"%s\"" % sha256_hex(catalog)[:32]},
                      {"name": "Cache-Control", "value": "private, max-age=60"}]),
                  resp_body=dict(self.catalog_body), status=200,
                  txns=[api_tx(API + "/v1/catalog?page=1", 200, 276.5, req=1.1, down=26.3)],
                  server={"ms": 231.0})

        # 5. cache hit: the home layout from the URL cache (app traffic)
        s.network(0.700, "GET", "https://cdn.acme.example/config/home-layout.json", source="app",
                  category="app", label="layout",
                  req_headers=[{"name": "Accept", "value": "application/json"}],
                  resp_headers=[{"name": "Content-Type", "value": "application/json"},
                                {"name": "Age", "value": "412"},
                                {"name": "ETag", "value": "\"5d41402abc4b2a76b9719d911017c592\""}],
                  resp_body=body_json({"sections": ["hero", "bf26", "new", "recent"], "version": 17}),
                  status=200, txns=[{"url": "https://cdn.acme.example/config/home-layout.json", "status": 200,
                                     "fetch": "localCache", "cache": 0.412}])

        # 6. a slow, TLS-heavy CDN: a new connection (DNS + TCP + TLS 1.2) for every image
        for i in range(6):
            url = "https://cdn.acme.example/img/p/%d.jpg?w=256" % (1100 + i)
            img = jpeg_bytes(rng, 900 + rng.randrange(700))
            tx = {"url": url, "status": 200, "blocked": 0.8 + i * 0.3, "dns": 48.0 + rng.randrange(90),
                  "tcp": 160.0 + rng.randrange(80), "tls": 980.0 + rng.randrange(420), "req": 0.6,
                  "wait": 92.0 + rng.randrange(80), "down": 41.0 + rng.randrange(90), "proto": "http/1.1",
                  "tlsv": "1.2", "addr": "192.0.2.%d" % (40 + i)}
            s.network(1.210 + i * 0.017, "GET", url, source="app", category="app", label="images",
                      http_version="HTTP/1.1",
                      req_headers=[{"name": "Accept", "value": "image/jpeg"}, {"name": "User-Agent",
                                                                              "value": USER_AGENT}],
                      resp_headers=[{"name": "Content-Type", "value": "image/jpeg"},
                                    {"name": "Content-Length", "value": str(len(img))},
                                    {"name": "Cache-Control", "value": "public, max-age=31536000"},
                                    {"name": "ETag", "value": "\"%s\"" % sha256_hex(img)[:40]},
                                    {"name": "Connection", "value": "close"}],
                      resp_body=body_binary(img, "image/jpeg"), status=200, txns=[tx])
        s.log(3.30, "notice", "images", "thumbnails slow", metadata={"count": 6, "host": "cdn.acme.example",
                                                                    "p50ms": 1480},
              source=("ImagePipeline.swift", "didFinish(_:)", 133))

        # 7. a redirect chain (app traffic): 301 -> 302 -> 200, a new host each hop
        chain = ["https://acme.example/promo/bf", "https://www.acme.example/promo/bf",
                 "https://shop.acme.example/promo/black-friday-2026"]
        s.network(4.120, "GET", chain[0], source="app", category="app", label="promo",
                  req_headers=[{"name": "Accept", "value": "text/html"}],
                  resp_headers=[{"name": "Content-Type", "value": "text/html; charset=utf-8"},
                                {"name": "Content-Location", "value": chain[2]}],
                  resp_body=body_text("<!doctype html><title>Black Friday</title><h1>Up to 40% off</h1>",
                                      "text/html; charset=utf-8"),
                  status=200, txns=[
                      {"url": chain[0], "status": 301, "dns": 22.4, "tcp": 28.0, "tls": 61.5, "req": 0.9,
                       "wait": 35.2, "down": 0.4, "addr": "192.0.2.80"},
                      {"url": chain[1], "status": 302, "gap": 0.3, "dns": 12.1, "tcp": 27.4, "tls": 58.8,
                       "req": 0.8, "wait": 41.0, "down": 0.3, "addr": "192.0.2.81"},
                      {"url": chain[2], "status": 200, "gap": 0.2, "dns": 19.5, "tcp": 30.2, "tls": 64.1,
                       "req": 0.8, "wait": 122.7, "down": 8.8, "addr": "192.0.2.82"}])

        # 8. cart (reused)
        s.log(6.02, "info", "cart", "CartView appeared", metadata={"items": 3},
              source=("CartView.swift", "body", 19))
        s.network(6.050, "GET", API + "/v1/cart", category="generated", label="pb.cart.get",
                  operation="pb.cart.get", request_id=True, req_headers=sdk_req_headers(),
                  resp_headers=api_resp_headers(s.at(6.1) + SERVER_SKEW_US),
                  resp_body=body_json({"cartId": "cart_8812", "items": [
                      {"sku": "SKU-01921", "qty": 1, "amount": 8900}, {"sku": "SKU-44120", "qty": 2, "amount": 2400},
                      {"sku": "SKU-00311", "qty": 1, "amount": 12900}], "currency": "GBP", "total": 26600}),
                  status=200, txns=[api_tx(API + "/v1/cart", 200, 58.0, req=0.9, down=1.6)],
                  server={"ms": 21.3})

        # 9. a slow backend: the quote waits ~3.9 s, nearly all of it on the server
        s.network(6.300, "POST", API + "/v1/orders/quote", category="generated", label="pb.orders.quote",
                  operation="pb.orders.quote", request_id=True,
                  req_headers=sdk_req_headers(content_type="application/json"),
                  req_body=body_json({"cartId": "cart_8812", "shipping": "standard", "promo": "BF26"}),
                  resp_headers=api_resp_headers(s.at(10.1) + SERVER_SKEW_US),
                  resp_body=body_json({"quoteId": "qt_5531", "subtotal": 26600, "discount": 10640, "shipping": 0,
                                       "total": 15960, "currency": "GBP", "validUntil": "2026-11-29T10:30:00Z"}),
                  status=200, txns=[api_tx(API + "/v1/orders/quote", 200, 3912.6, req=1.4, down=2.2)],
                  server={"ms": 3741.8, "extra": [("warning", "pricing upstream slow", -120.0)]})
        s.log(10.26, "warning", "checkout", "quote took 3.9 s", metadata={"quoteId": "qt_5531", "ms": 3916},
              source=("CheckoutModel.swift", "quote()", 212))

        # 10. recommendations: a proxy rewrote the X-Request-Id (echoed != minted)
        rewritten = "req_" + uuid4(rng)
        s.network(10.400, "GET", API + "/v1/recommendations?context=cart", category="generated",
                  label="pb.recommendations.list", operation="pb.recommendations.list", request_id=True,
                  echoed=rewritten, req_headers=sdk_req_headers(),
                  resp_headers=api_resp_headers(s.at(10.5) + SERVER_SKEW_US),
                  resp_body=body_json({"items": [{"id": "prd_%d" % n, "score": round(0.9 - n * 0.07, 2)}
                                                 for n in range(5)]}),
                  status=200, txns=[api_tx(API + "/v1/recommendations?context=cart", 200, 143.0, req=1.0,
                                           down=3.4)],
                  server={"ms": 97.5})

        # 11. an app request with X-Api-Key left in (contract broken: x-api-key must be ***)
        rec = s.network(11.020, "GET", "https://maps.acme.example/v1/geocode?q=SW1A%201AA", source="app",
                        category="app", label="geocode",
                        req_headers=[{"name": "Accept", "value": "application/json"},
                                     {"name": "X-Api-Key", "value": SECRETS["api_key"]}],
                        resp_headers=[{"name": "Content-Type", "value": "application/json"}],
                        resp_body=body_json({"lat": 51.501, "lng": -0.1416, "precision": "postcode"}),
                        status=200, txns=[{"url": "https://maps.acme.example/v1/geocode?q=SW1A%201AA",
                                           "status": 200, "dns": 14.0, "tcp": 22.0, "tls": 48.0, "req": 0.7,
                                           "wait": 64.0, "down": 1.1, "addr": "192.0.2.90"}])
        self.leak(rec, "request.headers[X-Api-Key]", "redaction.header", "api_key", "broken")

        # 12. SSO: a 302 whose Location carries ?code= (URLs inside headers: the contract is silent)
        state = "st_" + uuid4(rng)[:8]
        authorize = ("https://login.acme.example/oauth/authorize?client_id=ios-shop&response_type=code"
                     "&redirect_uri=com.acme.shop%3A%2F%2Foauth%2Fcallback&state=" + state)
        rec = s.network(12.400, "GET", authorize, source="app", category="app", label="sso",
                        req_headers=[{"name": "Accept", "value": "text/html"}],
                        resp_headers=[{"name": "Content-Type", "value": "text/html"},
                                      {"name": "Location", "value": "com.acme.shop://oauth/callback?code="
                                       + SECRETS["auth_code"] + "&state=" + state},
                                      {"name": "Cache-Control", "value": "no-store"}],
                        resp_body=body_none(), status=302,
                        txns=[{"url": authorize, "status": 302, "dns": 16.0, "tcp": 25.0, "tls": 52.0,
                               "req": 0.6, "wait": 88.0, "down": 0.2, "addr": "192.0.2.100"}])
        self.leak(rec, "response.headers[Location] ?code", "redaction.url-in-header", "auth_code", "silent")

        # 13. the partner stock feed, credentials in the URL's userinfo
        feed = "https://feeds:" + SECRETS["userinfo_password"] + "@partner.acme.example/v2/stock.json"
        rec = s.network(13.100, "GET", feed, source="app", category="app", label="partner-stock",
                        req_headers=[{"name": "Accept", "value": "application/json"}],
                        resp_headers=[{"name": "Content-Type", "value": "application/json"}],
                        resp_body=body_json({"updated": "2026-11-29T10:00:00Z", "skus": {"SKU-01921": 4,
                                                                                         "SKU-44120": 0}}),
                        status=200, txns=[{"url": feed, "status": 200, "dns": 21.0, "tcp": 26.0, "tls": 55.0,
                                           "req": 0.5, "wait": 71.0, "down": 0.9, "addr": "192.0.2.110"}])
        self.leak(rec, "url", "redaction.url-userinfo", "userinfo_password", "silent",
                  note="also in metrics.transactions[0].url")

        # 14. step-up re-authentication before paying: "password" sent in clear (contract broken)
        s.log(14.80, "info", "checkout", "step-up auth requested", metadata={"reason": "payment"},
              source=("CheckoutModel.swift", "pay()", 240))
        rec = s.network(15.900, "POST", API + "/v1/auth/reauthenticate", category="auth", label="auth.reauth",
                        request_id=True, req_headers=sdk_req_headers(content_type="application/json"),
                        req_body=body_json({"email": "sam.sample@example.com",
                                            "password": SECRETS["json_password"]}),
                        resp_headers=api_resp_headers(s.at(16.0) + SERVER_SKEW_US),
                        resp_body=body_json({"access_token": "***", "token_type": "Bearer", "expires_in": 900}),
                        status=200, txns=[api_tx(API + "/v1/auth/reauthenticate", 200, 182.0, req=1.2,
                                                 down=1.3)],
                        server={"ms": 151.0})
        self.leak(rec, "request.body $.password", "redaction.body-field", "json_password", "broken")

        # 15. loyalty points: OAuth password grant, form-urlencoded (the contract is silent)
        form = ("grant_type=password&username=sam.sample%40example.com&password=" + SECRETS["form_password"]
                + "&client_id=ios-shop")
        rec = s.network(16.500, "POST", "https://loyalty.acme.example/oauth/token", source="app",
                        category="app", label="loyalty",
                        req_headers=[{"name": "Content-Type", "value": "application/x-www-form-urlencoded"},
                                     {"name": "Accept", "value": "application/json"}],
                        req_body=body_text(form, "application/x-www-form-urlencoded"),
                        resp_headers=[{"name": "Content-Type", "value": "application/json"}],
                        resp_body=body_json({"access_token": "***", "expires_in": 600, "points": 1240}),
                        status=200, txns=[{"url": "https://loyalty.acme.example/oauth/token", "status": 200,
                                           "dns": 19.0, "tcp": 24.0, "tls": 50.0, "req": 0.8, "wait": 133.0,
                                           "down": 0.7, "addr": "192.0.2.120"}])
        self.leak(rec, "request.body password", "redaction.form-field", "form_password", "silent")

        # 16. receipt download: redirect to signed storage; transaction 0's url kept access_token
        first = API + "/v1/receipts/rcp_5521/pdf?access_token="
        signed = ("https://files.acme.example/receipts/rcp_5521.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                  "&X-Amz-Credential=***&X-Amz-Date=20261129T101521Z&X-Amz-Expires=300&X-Amz-Signature=***")
        pdf = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + bytes(rng.getrandbits(8) for _ in range(1400)) + b"\n%%EOF\n"
        rec = s.network(18.200, "GET", first + "***", kind="download", category="call", label="pb.call",
                        request_id=True, req_headers=sdk_req_headers(auth=False),
                        resp_headers=[{"name": "Content-Type", "value": "application/pdf"},
                                      {"name": "Content-Disposition", "value": "attachment; filename=rcp_5521.pdf"}],
                        echoed=False,
                        resp_body=body_binary(pdf, "application/pdf"), status=200,
                        txns=[api_tx(first + SECRETS["access_token"], 302, 46.0, req=0.8, down=0.2),
                              {"url": signed, "status": 200, "gap": 0.3, "dns": 17.0, "tcp": 23.0, "tls": 47.0,
                               "req": 0.6, "wait": 58.0, "down": 12.0, "addr": "192.0.2.130"}],
                        server={"ms": 12.6, "tx": 0, "status": 302, "path": "/v1/receipts/rcp_5521/pdf"})
        self.leak(rec, "metrics.transactions[0].url ?access_token", "redaction.query", "access_token", "broken")

        # 17. checkout: the order times out in the network; the server never sees it
        s.log(21.00, "info", "checkout", "placing order", metadata={"cartId": "cart_8812", "quoteId": "qt_5531",
                                                                   "total": 15960, "items": 3},
              source=("CheckoutModel.swift", "placeOrder()", 261))
        order_body = body_json({"cartId": "cart_8812", "quoteId": "qt_5531", "paymentMethod": "pm_card_visa_4242",
                                "idempotencyKey": "idem_" + uuid4(rng)})
        self.timeout_rec = s.network(
            21.050, "POST", API + "/v1/orders", category="generated", label="pb.orders.create",
            operation="pb.orders.create", request_id=True, state="failure",
            req_headers=sdk_req_headers(content_type="application/json"), req_body=order_body,
            error={"domain": "NSURLErrorDomain", "code": -1001, "description": "The request timed out."},
            txns=[{"url": API + "/v1/orders", "req": 30.5, "wait": None, "blocked": 0.4}],
            end_after=30000.0, server=None)
        s.log(51.07, "error", "checkout", "order create failed",
              metadata={"cartId": "cart_8812", "attempt": 1},
              error={"type": "URLError", "description": "The request timed out."},
              source=("CheckoutModel.swift", "placeOrder()", 277))
        # breadcrumbs go up on the error
        s.event(51.10, "breadcrumbs.uploaded", {"trigger": "error", "records": 50})
        s.network(51.110, "POST", API + "/v1/analytics/console-breadcrumbs", category="analytics",
                  label="breadcrumbs", request_id=True, req_headers=sdk_req_headers(content_type="application/json"),
                  req_body=body_json({"trigger": "error", "records": 50, "sessionId": s.session_id}),
                  resp_headers=api_resp_headers(s.at(51.3) + SERVER_SKEW_US),
                  resp_body=body_json({"accepted": 50}), status=202,
                  txns=[api_tx(API + "/v1/analytics/console-breadcrumbs", 202, 96.0, new=True, dns=0.9,
                               tcp=212.0, tls=388.0, req=6.0, down=0.8)],
                  server={"ms": 18.4})

        # 18. a developer logged the token while debugging the failure (log message: silent)
        s.log(51.90, "debug", "auth", "retrying with cached token " + SECRETS["jwt"],
              source=("AuthInterceptor.swift", "retry(_:)", 58))
        self.leak(None, "message", "secret.jwt", "jwt", "silent", where="log",
                  note="log at device ts %s" % s.ts(s.at(51.90)))
        self.jwt_log_ts = s.ts(s.at(51.90))

        s.network(52.000, "POST", API + "/v1/auth/token?client=ios", category="auth", label="auth.refresh",
                  request_id=True, req_headers=sdk_req_headers(content_type="application/json"),
                  req_body=body_json({"grant_type": "refresh_token", "refresh_token": "***"}),
                  resp_headers=api_resp_headers(s.at(52.1) + SERVER_SKEW_US),
                  resp_body=body_json({"access_token": "***", "token_type": "Bearer", "expires_in": 3600,
                                       "refresh_token": "***"}),
                  status=200, txns=[api_tx(API + "/v1/auth/token?client=ios", 200, 77.0, req=1.1, down=1.0)],
                  server={"ms": 36.6})

        # 19. the retry reaches the server and gets a 503 (payment provider down)
        s.log(52.30, "info", "checkout", "retrying order", metadata={"attempt": 2},
              source=("CheckoutModel.swift", "placeOrder()", 281))
        s.network(52.320, "POST", API + "/v1/orders", category="generated", label="pb.orders.create",
                  operation="pb.orders.create", request_id=True, state="failure",
                  req_headers=sdk_req_headers(content_type="application/json"), req_body=order_body,
                  resp_headers=api_resp_headers(s.at(57.5) + SERVER_SKEW_US, extra=[
                      {"name": "Retry-After", "value": "30"}]),
                  resp_body=body_json({"error": "payment_provider_unavailable", "retryAfter": 30}),
                  status=503,
                  error={"domain": "PalbeError", "code": 503,
                         "description": "Service Unavailable: payment_provider_unavailable"},
                  txns=[api_tx(API + "/v1/orders", 503, 5088.0, req=1.5, down=0.6)],
                  server={"ms": 5012.3, "level": "error", "msg": "payment provider unavailable",
                          "extra": [("error", "stripe-sim: upstream timeout after 5000ms", -8.0)]})
        s.log(57.48, "error", "checkout", "checkout failed", metadata={"status": 503, "attempt": 2,
                                                                     "retryAfter": 30},
              error={"type": "PalbeError", "description": "Service Unavailable: payment_provider_unavailable"},
              source=("CheckoutModel.swift", "placeOrder()", 290))

        # 20. the app's diagnostics upload: a raw gzip body that carries a Bearer credential (silent)
        diag = spaced({"app": "com.acme.shop", "build": "512", "screen": "checkout", "lastRequest": {
            "url": API + "/v1/orders", "status": 503, "headers": {
                "authorization": "Bear" + "er " + SECRETS["bearer"], "x-request-id": "see console"}},
            "breadcrumbs": ["cart", "quote", "sso", "pay", "timeout", "retry", "503"]}).encode("utf-8")
        diag_gz = gz(diag)
        rec = s.network(58.100, "POST", "https://diag.acme.example/v1/reports", source="app", category="app",
                        label="diagnostics",
                        req_headers=[{"name": "Content-Type", "value": "application/json"},
                                     {"name": "Content-Encoding", "value": "gzip"}],
                        req_body=body_binary(diag_gz, "application/json"),
                        resp_headers=[{"name": "Content-Type", "value": "application/json"}],
                        resp_body=body_json({"reportId": "dr_20261129_0042"}), status=201,
                        txns=[{"url": "https://diag.acme.example/v1/reports", "status": 201, "dns": 25.0,
                               "tcp": 31.0, "tls": 66.0, "req": 2.1, "wait": 140.0, "down": 0.5,
                               "addr": "192.0.2.140"}])
        self.leak(rec, "request.body (gzip) $.lastRequest.headers.authorization", "secret.bearer", "bearer",
                  "silent", note="request body is base64 of raw gzip (1f 8b); the Bearer token is inside")

        # 21. the user attaches a screenshot; the presigned upload is refused, error names the key id
        s.event(60.20, "report.sent")
        png = b"\x89PNG\r\n\x1a\n" + bytes(rng.getrandbits(8) for _ in range(600))
        up_url = ("https://acme-support-uploads.s3.eu-west-1.amazonaws.com/reports/usr_123/shot-1.png"
                  "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=***&X-Amz-Date=20261129T101601Z"
                  "&X-Amz-Expires=600&X-Amz-SignedHeaders=host&X-Amz-Signature=***")
        rec = s.network(60.300, "PUT", up_url, kind="upload", category="upload", label="support.attachment",
                        state="failure", status=403,
                        req_headers=[{"name": "Content-Type", "value": "image/png"},
                                     {"name": "Content-Length", "value": str(len(png))}],
                        req_body=body_binary(png, "image/png"),
                        resp_headers=[{"name": "Content-Type", "value": "application/xml"},
                                      {"name": "x-amz-request-id", "value": "0A1B2C3D4E5F6A7B"}],
                        resp_body=body_text("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>"
                                            "InvalidAccessKeyId</Code><Message>The AWS Access Key Id you provided"
                                            " does not exist in our records.</Message></Error>",
                                            "application/xml"),
                        error={"domain": "PalbeStorageError", "code": 403,
                               "description": "upload rejected (InvalidAccessKeyId) for AWSAccessKeyId="
                               + SECRETS["aws_key_id"]},
                        txns=[{"url": up_url, "status": 403, "dns": 31.0, "tcp": 44.0, "tls": 91.0, "req": 38.0,
                               "wait": 102.0, "down": 0.6, "addr": "192.0.2.150"}])
        self.leak(rec, "error.description", "secret.aws-access-key", "aws_key_id", "silent")
        s.log(60.80, "warning", "support", "attachment upload failed", metadata={"status": 403},
              source=("SupportView.swift", "attach()", 77))

        # 22. analytics + perf batches (reused)
        s.network(62.000, "POST", API + "/v1/analytics/events", category="analytics", label="analytics",
                  request_id=True, req_headers=sdk_req_headers(content_type="application/json"),
                  req_body=body_json({"events": [{"name": "checkout_failed", "props": {"status": 503}},
                                                 {"name": "screen_view", "props": {"screen": "support"}}]}),
                  resp_headers=api_resp_headers(s.at(62.1) + SERVER_SKEW_US), resp_body=body_none(),
                  status=202, txns=[api_tx(API + "/v1/analytics/events", 202, 41.0, req=0.8, down=0.1)],
                  server={"ms": 6.2})
        s.network(62.400, "POST", API + "/v1/perf/traces", category="perf", label="perf",
                  request_id=True, req_headers=sdk_req_headers(content_type="application/json"),
                  req_body=body_json({"traces": [{"name": "checkout", "ms": 36480}, {"name": "quote", "ms": 3916}]}),
                  resp_headers=api_resp_headers(s.at(62.5) + SERVER_SKEW_US), resp_body=body_none(),
                  status=202, txns=[api_tx(API + "/v1/perf/traces", 202, 38.0, req=0.7, down=0.1)],
                  server={"ms": 5.1})

        # 23. back to the catalog: identical payload, same blob as before
        s.log(70.10, "debug", "catalog", "HomeView appeared", source=("HomeView.swift", "body", 27))
        s.network(70.120, "GET", API + "/v1/catalog?page=1", category="generated", label="pb.catalog.list",
                  operation="pb.catalog.list", request_id=True, req_headers=sdk_req_headers(),
                  resp_headers=api_resp_headers(s.at(70.3) + SERVER_SKEW_US, extra=[
                      {"name": "ETag", "value": "W/\"%s\"" % sha256_hex(catalog)[:32]},
                      {"name": "Cache-Control", "value": "private, max-age=60"}]),
                  resp_body=dict(self.catalog_body), status=200,
                  txns=[api_tx(API + "/v1/catalog?page=1", 200, 198.0, req=1.0, down=19.0)],
                  server={"ms": 160.4})
        s.network(71.000, "GET", API + "/v1/flags?keys=palbase.debug_console,palbase.force_update",
                  category="flags", label="flags", request_id=True, req_headers=sdk_req_headers(),
                  resp_headers=api_resp_headers(s.at(71.1) + SERVER_SKEW_US),
                  resp_body=body_json({"flags": {"palbase.debug_console": True, "palbase.force_update": False}}),
                  status=200, txns=[api_tx(API + "/v1/flags?keys=palbase.debug_console,palbase.force_update",
                                           200, 29.0, req=0.9, down=1.0)],
                  server={"ms": 9.8})
        s.event(71.09, "flags.synced", {"debugConsole": True})

        # 24. a gRPC call the app recorded by hand: a `custom` record, no metrics, no bodies
        s.network(72.500, "POST", "https://rpc.acme.example/inventory.v1.Inventory/ReleaseHold", source="app",
                  kind="custom", category="app", label="grpc", status=200, txns=None, end_after=184.0,
                  metrics=False, bare=True)

        # 25. orders list, still pending when the app went to the background
        s.log(74.00, "info", "orders", "OrdersView appeared", source=("OrdersView.swift", "body", 22))
        s.network(74.050, "GET", API + "/v1/orders?status=open", category="generated", label="pb.orders.listOpen",
                  operation="pb.orders.listOpen", request_id=True, state="pending",
                  req_headers=sdk_req_headers(), metrics=False,
                  server={"ms": 840.0, "at": 75.2})
        s.event(74.60, "app.background")

    # -- views used by writers -------------------------------------------------------------------
    def expected_leaks(self, session_file):
        recs = self.s.records()
        by_id = {r.get("id"): r for r in recs if r["type"] == "network"}
        out = []
        for lk in self.leaks:
            if lk["rec"] is not None:
                r = by_id[lk["rec"]["id"]]
            else:
                r = next(x for x in recs if x["type"] == "log" and x["ts"] == self.jwt_log_ts)
            value = SECRETS[lk["key"]]
            entry = {"sessionId": self.s.session_id, "seq": r["seq"], "line": r["seq"] + 1,
                     "file": session_file, "recordType": r["type"], "location": lk["location"],
                     "rule": lk["rule"], "contract": lk["contract"],
                     "preview": preview(value), "fingerprint": fingerprint(value), "valueLength": len(value)}
            if r["type"] == "network":
                entry["recordId"] = r["id"]
            if lk["where"] == "blob":
                hexd = r["response"]["body"]["blob"][7:]
                entry["blob"] = "blobs/%s/%s" % (hexd[:2], hexd)
                entry["blobLine"] = 1
            if lk["note"]:
                entry["note"] = lk["note"]
            out.append(entry)
        out.sort(key=lambda e: (e["seq"], e["rule"]))
        return out


# ---------------------------------------------------------------------------------------------
# Clean sessions (folder export, bare .jsonl, bare .jsonl.gz)
# ---------------------------------------------------------------------------------------------

def build_clean_session(seed, launched, user_id, digits, with_blob, device=None, short=False):
    """A healthy session: everything redacted as promised, nothing failed, nothing pending."""
    rng = random.Random(seed)
    s = Session(rng, launched, digits=digits, user_id=user_id, device=device)
    s.event(0.030, "recording.started")
    t = 0.040
    auth = user_id is not None
    if auth:
        s.network(t, "POST", API + "/v1/auth/token?client=ios", category="auth", label="auth.refresh",
                  request_id=True, req_headers=sdk_req_headers(content_type="application/json"),
                  req_body=body_json({"grant_type": "refresh_token", "refresh_token": "***"}),
                  resp_headers=api_resp_headers(s.at(t + 0.2) + SERVER_SKEW_US,
                                                extra=[{"name": "Set-Cookie", "value": "***"}]),
                  resp_body=body_json({"access_token": "***", "token_type": "Bearer", "expires_in": 3600}),
                  status=200, txns=[api_tx(API + "/v1/auth/token?client=ios", 200, 104.0, new=True, dns=15.0,
                                           tcp=27.0, tls=39.0, req=2.0, down=2.0)],
                  server={"ms": 35.0})
        t += 0.30
    s.network(t, "GET", API + "/v1/flags?keys=palbase.debug_console", category="flags", label="flags",
              request_id=True, req_headers=sdk_req_headers(auth=auth),
              resp_headers=api_resp_headers(s.at(t + 0.1) + SERVER_SKEW_US),
              resp_body=body_json({"flags": {"palbase.debug_console": auth}}), status=200,
              txns=[api_tx(API + "/v1/flags?keys=palbase.debug_console", 200, 28.0, new=not auth, dns=16.0,
                           tcp=26.0, tls=41.0, req=1.0, down=1.0)],
              server={"ms": 9.0})
    s.event(t + 0.2, "flags.synced", {"debugConsole": auth})
    t += 0.25
    s.log(t, "debug", "catalog", "HomeView appeared", source=("HomeView.swift", "body", 27))
    if with_blob:
        catalog = catalog_payload(rng, 2, 140)
        cbody = s.blob_body(catalog, "application/json")
    else:
        catalog = catalog_payload(rng, 2, 12)
        cbody = body_text(catalog.decode("utf-8"))
    s.network(t + 0.01, "GET", API + "/v1/catalog?page=2", category="generated", label="pb.catalog.list",
              operation="pb.catalog.list", request_id=True, req_headers=sdk_req_headers(auth=auth),
              resp_headers=api_resp_headers(s.at(t + 0.3) + SERVER_SKEW_US, extra=[
                  {"name": "ETag", "value": "W/\"%s\"" % sha256_hex(catalog)[:32]}]),
              resp_body=cbody, status=200,
              txns=[api_tx(API + "/v1/catalog?page=2", 200, 240.0, req=1.0, down=21.0)],
              server={"ms": 201.0})
    t += 0.4
    s.network(t, "GET", "https://cdn.acme.example/config/home-layout.json", source="app", category="app",
              label="layout", req_headers=[{"name": "Accept", "value": "application/json"}],
              resp_headers=[{"name": "Content-Type", "value": "application/json"},
                            {"name": "ETag", "value": "\"5d41402abc4b2a76b9719d911017c592\""}],
              resp_body=body_json({"sections": ["hero", "new", "recent"], "version": 16}), status=200,
              txns=[{"url": "https://cdn.acme.example/config/home-layout.json", "status": 200,
                     "fetch": "localCache", "cache": 1.0}])
    # a small thumbnail, inline base64 (base64 is not a secret)
    img = jpeg_bytes(rng, 700)
    s.network(t + 0.05, "GET", "https://cdn.acme.example/img/p/2201.jpg?w=128", source="app", category="app",
              label="images", req_headers=[{"name": "Accept", "value": "image/jpeg"}],
              resp_headers=[{"name": "Content-Type", "value": "image/jpeg"},
                            {"name": "ETag", "value": "\"%s\"" % sha256_hex(img)[:40]}],
              resp_body=body_binary(img, "image/jpeg"), status=200,
              txns=[{"url": "https://cdn.acme.example/img/p/2201.jpg?w=128", "status": 200, "dns": 12.0,
                     "tcp": 20.0, "tls": 35.0, "req": 1.0, "wait": 45.0, "down": 8.0, "addr": "192.0.2.41"}])
    t += 0.5
    if not short and auth:
        s.log(t, "info", "cart", "CartView appeared", metadata={"items": 1}, source=("CartView.swift", "body", 19))
        s.network(t + 0.02, "GET", API + "/v1/cart", category="generated", label="pb.cart.get",
                  operation="pb.cart.get", request_id=True, req_headers=sdk_req_headers(),
                  resp_headers=api_resp_headers(s.at(t + 0.1) + SERVER_SKEW_US),
                  resp_body=body_json({"cartId": "cart_%d" % rng.randrange(1000, 9999), "items": [
                      {"sku": "SKU-12001", "qty": 1, "amount": 4500}], "currency": "GBP", "total": 4500}),
                  status=200, txns=[api_tx(API + "/v1/cart", 200, 44.0, req=1.0, down=1.0)], server={"ms": 19.0})
        t += 0.4
        s.network(t, "POST", API + "/v1/orders", category="generated", label="pb.orders.create",
                  operation="pb.orders.create", request_id=True,
                  req_headers=sdk_req_headers(content_type="application/json"),
                  req_body=body_json({"cartId": "cart_1", "paymentMethod": "pm_card_visa_4242",
                                      "idempotencyKey": "idem_" + uuid4(rng)}),
                  resp_headers=api_resp_headers(s.at(t + 0.6) + SERVER_SKEW_US, extra=[
                      {"name": "Location", "value": API + "/v1/orders/ord_%d" % rng.randrange(10000, 99999)}]),
                  resp_body=body_json({"orderId": "ord_%d" % rng.randrange(10000, 99999), "status": "paid",
                                       "checksum": "sha256:" + sha256_hex(b"order")}),
                  status=201, txns=[api_tx(API + "/v1/orders", 201, 512.0, req=1.5, down=1.0)],
                  server={"ms": 468.0})
        s.log(t + 0.55, "notice", "checkout", "order placed", metadata={"items": 1, "total": 4500},
              source=("CheckoutModel.swift", "placeOrder()", 270))
        t += 0.8
    s.network(t, "POST", API + "/v1/analytics/events", category="analytics", label="analytics",
              request_id=True, req_headers=sdk_req_headers(auth=auth, content_type="application/json"),
              req_body=body_json({"events": [{"name": "screen_view", "props": {"screen": "home"}}]}),
              resp_headers=api_resp_headers(s.at(t + 0.1) + SERVER_SKEW_US), resp_body=body_none(),
              status=202, txns=[api_tx(API + "/v1/analytics/events", 202, 36.0, req=1.0, down=0.1)],
              server={"ms": 5.0})
    s.event(t + 2.5, "app.background")
    return s


# ---------------------------------------------------------------------------------------------
# Server logs
# ---------------------------------------------------------------------------------------------

def server_events(session, user_id):
    """(server_us, kind, fields) for every request of `session` the server saw."""
    out = []
    for info in session.requests:
        srv = info["server"]
        if srv is None:
            continue
        rec = info["record"]
        rid = info["echoed"] or info["requestId"]
        minted = info["requestId"]
        ms = srv["ms"]
        if "at" in srv:
            device_done = session.at(srv["at"])
        else:
            tm = info["tx"][srv.get("tx", len(info["tx"]) - 1)]
            wait = tm["responseStart"] - tm["requestEnd"]
            net = max(0, wait - int(ms * 1000))
            device_done = tm["requestEnd"] + net // 2 + int(ms * 1000)
        path = srv.get("path") or rec["url"].split("://", 1)[1].split("/", 1)[1].split("?", 1)[0]
        path = "/" + path
        status = srv.get("status", rec.get("statusCode", 200))
        server_us = device_done + SERVER_SKEW_US
        for level, msg, offset_ms in srv.get("extra", []):
            out.append((server_us + int(offset_ms * 1000), "api", {
                "level": level, "request_id": rid, "method": rec["method"], "path": path, "status": None,
                "duration_ms": None, "user_id": user_id, "msg": msg}))
        out.append((server_us, "api", {
            "level": srv.get("level", "info" if status < 500 else "error"), "request_id": rid,
            "method": rec["method"], "path": path, "status": status, "duration_ms": ms, "user_id": user_id,
            "msg": srv.get("msg", "request completed"), "minted": minted,
            "bytes": (rec.get("response") or {}).get("body", {}).get("size", 0)}))
    return out


def api_line(us, f):
    o = {"ts": rfc3339(us), "level": f["level"], "request_id": f["request_id"], "method": f["method"],
         "path": f["path"]}
    if f.get("status") is not None:
        o["status"] = f["status"]
    if f.get("duration_ms") is not None:
        o["duration_ms"] = f["duration_ms"]
    if f.get("user_id"):
        o["user_id"] = f["user_id"]
    o["env"] = ENV
    o["msg"] = f["msg"]
    return spaced(o)


NOISE_PATHS = [("GET", "/v1/catalog", 200, 180.0), ("GET", "/v1/cart", 200, 20.0), ("GET", "/v1/flags", 200, 9.0),
               ("POST", "/v1/auth/token", 200, 35.0), ("POST", "/v1/analytics/events", 202, 5.0),
               ("GET", "/v1/recommendations", 200, 95.0), ("POST", "/v1/orders/quote", 200, 900.0),
               ("GET", "/v1/orders", 200, 60.0), ("POST", "/v1/orders", 201, 450.0),
               ("GET", "/v1/auth/session", 200, 40.0), ("POST", "/v1/perf/traces", 202, 4.0)]


def noise_lines(rng, start_us, end_us, mean_gap_s, users):
    """Other users' traffic: (server_us, fields)."""
    out = []
    t = start_us
    while True:
        t += int(rng.expovariate(1.0 / mean_gap_s) * 1000000) + 1000
        if t >= end_us:
            break
        method, path, status, base = rng.choice(NOISE_PATHS)
        if path == "/v1/orders" and method == "POST" and to_dt(t).hour == 10 and to_dt(t).minute >= 14:
            status = rng.choice([201, 503, 503])  # the payment provider outage hits everyone
        if rng.random() < 0.02:
            status = rng.choice([400, 401, 404, 429])
        dur = round(base * (0.5 + rng.random()), 1)
        user = rng.choice(users) if rng.random() < 0.9 else None
        level = "info" if status < 400 else ("warning" if status < 500 else "error")
        msg = "request completed" if status < 500 else "payment provider unavailable"
        out.append((t, {"level": level, "request_id": "req_" + uuid4(rng), "method": method, "path": path,
                        "status": status, "duration_ms": dur, "user_id": user, "msg": msg}))
        if rng.random() < 0.01:
            out.append((t + 5000, {"level": "info", "request_id": None, "msg": "cache warmed"}))
    return out


def write_logs(out_dir, incident, previous, anonymous):
    rng = random.Random(5)
    users = ["usr_%d" % rng.randrange(200, 99999) for _ in range(60)]
    s = incident.s
    day_start = us_at(2026, 11, 29, 8, 0, 0)
    rotate_at = us_at(2026, 11, 29, 10, 16, 0)
    day_end = us_at(2026, 11, 29, 10, 40, 0)

    lines = []  # (us, order, text)
    order = [0]

    def add(us, text):
        lines.append((us, order[0], text))
        order[0] += 1

    for us, f in noise_lines(rng, day_start, day_end, 3.2, users):
        if f.get("request_id") is None:
            add(us, spaced({"ts": rfc3339(us), "level": "info", "env": ENV, "msg": f["msg"]}))
        else:
            add(us, api_line(us, f))
    sess_events = (server_events(previous, previous.user_id) + server_events(anonymous, None)
                   + server_events(s, s.user_id))
    for us, _, f in sess_events:
        add(us, api_line(us, f))
    # server-only ids of the session's own user in the window (the web shop, in another tab)
    own = []
    for off_s, method, path, status, dur in [(9.4, "GET", "/v1/orders", 200, 58.1),
                                              (33.0, "GET", "/v1/cart", 200, 17.9),
                                              (64.2, "POST", "/v1/orders", 503, 5004.9)]:
        us = s.at(off_s) + SERVER_SKEW_US
        rid = "req_" + uuid4(rng)
        own.append(rid)
        add(us, api_line(us, {"level": "info" if status < 500 else "error", "request_id": rid, "method": method,
                              "path": path, "status": status, "duration_ms": dur, "user_id": s.user_id,
                              "msg": "request completed" if status < 500 else "payment provider unavailable"}))
    lines.sort()
    older = [t for us, _, t in lines if us < rotate_at]
    newer = [t for us, _, t in lines if us >= rotate_at]
    logs = os.path.join(out_dir, "logs")
    os.makedirs(logs)
    with open(os.path.join(logs, "api.log"), "wb") as f:
        f.write(("\n".join(newer) + "\n").encode("utf-8"))
    with open(os.path.join(logs, "api.log.1.gz"), "wb") as f:
        f.write(gz(("\n".join(older) + "\n").encode("utf-8")))

    # nginx in front of the API: combined format plus $request_id (the id as the client sent it)
    win_start = s.launched - 30 * 1000000 + SERVER_SKEW_US
    win_end = s.end_us() + 60 * 1000000 + SERVER_SKEW_US
    ng = []
    for us, f in noise_lines(random.Random(6), win_start, win_end, 1.6, users):
        if f.get("request_id"):
            ng.append((us, "203.0.113.%d" % (us % 200 + 20), f["method"], f["path"], f["status"],
                       rng.randrange(50, 9000), f["request_id"], "okhttp/4.12.0" if us % 3 == 0 else
                       "AcmeShop/4.2.0 (com.acme.shop; build:512; Android 15) palbe-kotlin/3.1.0"))
    for us, _, f in server_events(s, s.user_id):
        if f.get("status") is None:
            continue
        ng.append((us, DEVICE_IP, f["method"], f["path"], f["status"], f["bytes"], f["minted"], USER_AGENT))
    ng.sort()
    with open(os.path.join(logs, "nginx-access.log"), "wb") as fh:
        for us, ip, method, path, status, size, rid, ua in ng:
            when = to_dt(us).strftime("%d/%b/%Y:%H:%M:%S +0000")
            fh.write(('%s - - [%s] "%s %s HTTP/2.0" %d %d "-" "%s" %s\n'
                      % (ip, when, method, path, status, size, ua, rid)).encode("utf-8"))

    # the workers behind the API (logfmt) and the checkout service (plain text)
    by_path = {}
    for us, _, f in server_events(s, s.user_id):
        if f.get("status") is not None:
            by_path.setdefault((f["method"], f["path"]), []).append((us, f))
    quote_us, quote = by_path[("POST", "/v1/orders/quote")][0]
    order_us, order_f = by_path[("POST", "/v1/orders")][0]
    wk = []
    wrng = random.Random(7)
    for us, f in noise_lines(wrng, win_start, win_end, 6.0, users):
        if f.get("request_id") and f["path"] in ("/v1/orders/quote", "/v1/orders"):
            svc = "pricing-worker" if f["path"].endswith("quote") else "payment-worker"
            wk.append((us, "ts=%s level=info service=%s request_id=%s msg=\"job done\" duration_ms=%.1f"
                       % (rfc3339(us, 3), svc, f["request_id"], f["duration_ms"] * 0.8)))
    wk.append((quote_us - 3500000, "ts=%s level=info service=pricing-worker request_id=%s msg=\"quote started\" "
               "cart=cart_8812 items=3" % (rfc3339(quote_us - 3500000, 3), quote["request_id"])))
    wk.append((quote_us - 60000, "ts=%s level=warn service=pricing-worker request_id=%s msg=\"promo rules "
               "evaluated\" rules=412 duration_ms=3318.4" % (rfc3339(quote_us - 60000, 3), quote["request_id"])))
    wk.append((order_us - 4000, "ts=%s level=error service=payment-worker request_id=%s msg=\"provider call "
               "failed\" provider=stripe-sim attempt=3 err=\"context deadline exceeded\" duration_ms=5000.2"
               % (rfc3339(order_us - 4000, 3), order_f["request_id"])))
    wk.sort()
    with open(os.path.join(logs, "worker.logfmt.log"), "wb") as fh:
        for _, text in wk:
            fh.write((text + "\n").encode("utf-8"))

    def plain(us):
        dt = to_dt(us)
        return dt.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (dt.microsecond // 1000)

    ap = []
    near = uuid4(random.Random(8))
    ap.append((order_us - 5030000, "%s INFO  [checkout-svc] %s order create started cart=cart_8812 user=%s"
               % (plain(order_us - 5030000), order_f["request_id"], s.user_id)))
    ap.append((order_us - 30000, "%s ERROR [checkout-svc] %s payment provider unavailable; answering 503"
               % (plain(order_us - 30000), order_f["request_id"])))
    ap.append((quote_us - 3600000, "%s INFO  [checkout-svc] %s quote requested promo=BF26"
               % (plain(quote_us - 3600000), quote["request_id"])))
    ap.append((quote_us - 2000, "%s WARN  [checkout-svc] quote slow (%s): 3741 ms"
               % (plain(quote_us - 2000), quote["request_id"])))
    # near misses a correlator must not match: a dash instead of an underscore, a bare uuid
    ap.append((quote_us + 900000, "%s DEBUG [checkout-svc] legacy trace id req-%s (not a request id)"
               % (plain(quote_us + 900000), near)))
    ap.append((quote_us + 950000, "%s DEBUG [checkout-svc] span %s closed" % (plain(quote_us + 950000), near)))
    ap.append((order_us + 40000000, "%s INFO  [checkout-svc] circuit breaker open for stripe-sim (12 failures)"
               % plain(order_us + 40000000)))
    ap.sort()
    with open(os.path.join(logs, "app.txt"), "wb") as fh:
        for _, text in ap:
            fh.write((text + "\n").encode("utf-8"))
    return {"ownServerOnly": own, "nearMiss": near}


# ---------------------------------------------------------------------------------------------
# Containers
# ---------------------------------------------------------------------------------------------

def export_tree(sessions, exported_us, includes_bodies=True):
    """{relative path: bytes} for an export root holding `sessions` (Session objects)."""
    files = {}
    files["store.json"] = spaced({"format": "palbe-console-store", "formatVersion": 1,
                                  "budgetBytes": STORE_BUDGET}).encode("utf-8")
    files["export.json"] = spaced({"format": "palbe-console-export", "formatVersion": 1,
                                   "exportedAt": rfc3339(exported_us), "sessions": [s.session_id for s in sessions],
                                   "includesBodies": includes_bodies, "app": dict(APP)}).encode("utf-8")
    for s in sessions:
        files["sessions/%s.jsonl" % s.session_id] = s.jsonl()
        for hexd, data in s.blobs.items():
            files["blobs/%s/%s" % (hexd[:2], hexd)] = data
    return files


def write_folder(root, files):
    for rel in sorted(files):
        path = os.path.join(root, *rel.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(files[rel])


def zip_bytes(files, prefix="", compress=zipfile.ZIP_DEFLATED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        dirs = set()
        for rel in sorted(files):
            parts = (prefix + rel).split("/")
            for i in range(1, len(parts)):
                d = "/".join(parts[:i]) + "/"
                if d not in dirs:
                    dirs.add(d)
                    zi = zipfile.ZipInfo(d, date_time=ZIP_DATE)
                    zi.create_system = 3
                    zi.external_attr = (0o40755 << 16) | 0x10
                    z.writestr(zi, b"")
            zi = zipfile.ZipInfo(prefix + rel, date_time=ZIP_DATE)
            zi.create_system = 3
            zi.external_attr = 0o100644 << 16
            zi.compress_type = compress
            z.writestr(zi, files[rel])
    return buf.getvalue()


def _tar_header(name, size, mode, typeflag, linkname=""):
    """A ustar header, written by hand so every Python version gives the same bytes."""
    nb = name.encode("utf-8")
    prefix = b""
    if len(nb) > 100:
        cut = nb.rfind(b"/", 0, 156)
        prefix, nb = nb[:cut], nb[cut + 1:]
        assert len(nb) <= 100 and len(prefix) <= 155, name

    def octal(n, width):
        return ("%0*o" % (width - 1, n)).encode("ascii") + b"\0"

    h = bytearray(512)
    h[0:100] = nb.ljust(100, b"\0")
    h[100:108] = octal(mode, 8)
    h[108:116] = octal(501, 8)
    h[116:124] = octal(20, 8)
    h[124:136] = octal(size, 12)
    h[136:148] = octal(TAR_MTIME, 12)
    h[148:156] = b" " * 8
    h[156:157] = typeflag
    h[157:257] = linkname.encode("utf-8").ljust(100, b"\0")
    h[257:265] = b"ustar\x0000"
    h[265:297] = b"mobile".ljust(32, b"\0")
    h[297:329] = b"mobile".ljust(32, b"\0")
    h[345:500] = prefix.ljust(155, b"\0")
    h[148:156] = ("%06o" % sum(h)).encode("ascii") + b"\0 "
    return bytes(h)


def tar_bytes(entries):
    """entries: list of (name, bytes or None for a dir, extra dict). ustar, fixed owner and time."""
    out = bytearray()
    for name, data, extra in entries:
        if extra.get("symlink"):
            out += _tar_header(name, 0, 0o777, b"2", extra["symlink"])
        elif data is None:
            out += _tar_header(name, 0, 0o755, b"5")
        else:
            out += _tar_header(name, len(data), 0o644, b"0")
            out += data + b"\0" * ((512 - len(data) % 512) % 512)
    out += b"\0" * 1024
    # tar pads the archive to a multiple of 10240 bytes (its default record size)
    out += b"\0" * ((10240 - len(out) % 10240) % 10240)
    return bytes(out)


def tree_entries(files, prefix=""):
    entries, dirs = [], set()
    for rel in sorted(files):
        parts = (prefix + rel).split("/")
        for i in range(1, len(parts)):
            d = "/".join(parts[:i]) + "/"
            if d not in dirs:
                dirs.add(d)
                entries.append((d, None, {}))
        entries.append((prefix + rel, files[rel], {}))
    return entries


# ---------------------------------------------------------------------------------------------
# Damaged exports
# ---------------------------------------------------------------------------------------------

def small_session(seed, minute):
    """A tiny healthy session (8-ish records) to damage."""
    rng = random.Random(seed)
    s = Session(rng, us_at(2026, 11, 29, 9, minute, 0, 500000), digits=6, user_id="usr_777")
    s.event(0.02, "recording.started")
    s.network(0.05, "GET", API + "/v1/flags?keys=palbase.debug_console", category="flags", label="flags",
              request_id=True, req_headers=sdk_req_headers(),
              resp_headers=api_resp_headers(s.at(0.1) + SERVER_SKEW_US),
              resp_body=body_json({"flags": {"palbase.debug_console": True}}), status=200,
              txns=[api_tx(API + "/v1/flags?keys=palbase.debug_console", 200, 30.0, new=True)], server={"ms": 8.0})
    s.log(0.4, "info", "app", "home shown", source=("HomeView.swift", "body", 27))
    s.network(0.5, "GET", API + "/v1/cart", category="generated", label="pb.cart.get", operation="pb.cart.get",
              request_id=True, req_headers=sdk_req_headers(),
              resp_headers=api_resp_headers(s.at(0.6) + SERVER_SKEW_US),
              resp_body=body_json({"cartId": "cart_1", "items": [], "total": 0}), status=200,
              txns=[api_tx(API + "/v1/cart", 200, 40.0)], server={"ms": 12.0})
    s.log(0.9, "warning", "checkout", "cart is empty", metadata={"sku": "A1"},
          source=("CheckoutView.swift", "load()", 88))
    s.network(1.1, "GET", API + "/v1/recommendations", category="generated", label="pb.recommendations.list",
              operation="pb.recommendations.list", request_id=True, req_headers=sdk_req_headers(),
              resp_headers=api_resp_headers(s.at(1.2) + SERVER_SKEW_US),
              resp_body=body_json({"items": []}), status=200,
              txns=[api_tx(API + "/v1/recommendations", 200, 60.0)], server={"ms": 30.0})
    s.event(1.5, "app.background")
    return s


def add_blob_record(s, seconds, data):
    body = s.blob_body(data, "application/json")
    s.network(seconds, "GET", API + "/v1/catalog?page=3", category="generated", label="pb.catalog.list",
              operation="pb.catalog.list", request_id=True, req_headers=sdk_req_headers(),
              resp_headers=api_resp_headers(s.at(seconds + 0.2) + SERVER_SKEW_US), resp_body=body, status=200,
              txns=[api_tx(API + "/v1/catalog?page=3", 200, 150.0, down=12.0)], server={"ms": 120.0})
    return body


def write_damaged(out_dir):
    base = os.path.join(out_dir, "damaged")
    os.makedirs(base)
    expected = []
    exported = us_at(2026, 11, 29, 9, 59, 0)

    def finish(name, s, lines=None, extra_files=None, drop_blobs=(), note=""):
        files = export_tree([s], exported)
        if lines is not None:
            files["sessions/%s.jsonl" % s.session_id] = b"".join(lines)
        for hexd in drop_blobs:
            del files["blobs/%s/%s" % (hexd[:2], hexd)]
        files.update(extra_files or {})
        write_folder(os.path.join(base, name), files)
        return "damaged/%s/sessions/%s.jsonl" % (name, s.session_id)

    def lines_of(s):
        return [(l + "\n").encode("utf-8") for l in s.lines()]

    # 1. the app was killed mid-write: last line cut short, no newline
    s = small_session(101, 1)
    ls = lines_of(s)
    last = ls[-1]
    ls[-1] = last[: len(last) // 2]
    f = finish("torn-line", s, ls)
    expected.append({"case": "torn-line", "file": f, "sessionId": s.session_id, "findings": [
        {"rule": "integrity.torn-line", "line": len(ls)}],
        "also": "recordCount counts the %d complete records; the input is still status ok" % (len(ls) - 2),
        "what": "the last line (seq %d) is cut in half and has no trailing newline" % (len(ls) - 1)})

    # 2. a damaged line in the middle (transfer fault: bytes zeroed)
    s = small_session(102, 2)
    ls = lines_of(s)
    bad = bytearray(ls[4])
    for i in range(20, 60):
        bad[i] = 0
    ls[4] = bytes(bad)
    f = finish("malformed-line", s, ls)
    expected.append({"case": "malformed-line", "file": f, "sessionId": s.session_id, "findings": [
        {"rule": "integrity.malformed-line", "line": 5}],
        "may": [{"rule": "integrity.seq-gap", "seq": 4, "why": "the damaged line held seq 4"}],
        "what": "line 5 (seq 4) has 40 bytes overwritten with NUL; every other line parses"})

    # 3. records lost and repeated: seq 1 2 3 5 6 6 7
    s = small_session(103, 3)
    recs = s.records()
    out = []
    for r in recs:
        if r["seq"] == 4:
            continue
        out.append(r)
    # a second, different record with the seq of the one before it
    dup = dict(out[5])
    assert dup["seq"] == 6
    dup2 = {"type": "log", "seq": 6, "ts": dup["ts"], "level": "info", "label": "app",
            "message": "written twice with one seq", "source": {"file": "App.swift", "function": "run()", "line": 1}}
    out.insert(6, dup2)
    ls = [(compact(r) + "\n").encode("utf-8") for r in out]
    f = finish("seq-gap-duplicate", s, ls)
    expected.append({"case": "seq-gap-duplicate", "file": f, "sessionId": s.session_id, "findings": [
        {"rule": "integrity.seq-gap", "seq": 5, "missing": [4]},
        {"rule": "integrity.seq-duplicate", "seq": 6, "line": 7}],
        "what": "seq 4 is missing (seq 3 is followed by 5) and seq 6 appears on lines 6 and 7"})

    # 4. a blob the records reference is not in the export
    s = small_session(104, 4)
    body = add_blob_record(s, 1.3, catalog_payload(random.Random(41), 3, 140))
    f = finish("blob-missing", s, drop_blobs=[body["blob"][7:]])
    expected.append({"case": "blob-missing", "file": f, "sessionId": s.session_id, "findings": [
        {"rule": "integrity.blob-missing", "seq": s.seq_of(s.requests[-1]["record"]), "blob": body["blob"]}],
        "what": "response.body references a blob that is absent from blobs/"})

    # 5. a blob whose bytes don't hash to its name (one byte changed, same size)
    s = small_session(105, 5)
    body = add_blob_record(s, 1.3, catalog_payload(random.Random(51), 3, 140))
    hexd = body["blob"][7:]
    data = bytearray(s.blobs[hexd])
    data[100] = ord("X") if data[100] != ord("X") else ord("Y")
    f = finish("blob-hash-mismatch", s, extra_files={"blobs/%s/%s" % (hexd[:2], hexd): bytes(data)})
    expected.append({"case": "blob-hash-mismatch", "file": f, "sessionId": s.session_id, "findings": [
        {"rule": "integrity.blob-hash-mismatch", "blob": "blobs/%s/%s" % (hexd[:2], hexd)}],
        "what": "byte 100 of the blob was altered; size unchanged, SHA-256 no longer matches the name"})

    # 6. an orphan blob nobody references
    s = small_session(106, 6)
    orphan = catalog_payload(random.Random(61), 4, 140)
    oh = sha256_hex(orphan)
    f = finish("blob-orphan", s, extra_files={"blobs/%s/%s" % (oh[:2], oh): orphan})
    expected.append({"case": "blob-orphan", "file": f, "sessionId": s.session_id, "findings": [
        {"rule": "integrity.blob-orphan", "blob": "blobs/%s/%s" % (oh[:2], oh)}],
        "what": "a valid blob (hash matches) that no record references"})

    # 7. a realtime frame record in an export (never allowed to leave the device)
    s = small_session(107, 7)
    s.raw(1.2, "frame", {"direction": "out", "topic": "realtime:orders", "event": "phx_join", "size": 212,
                         "body": {"access_token": "***", "user": "usr_777"}})
    f = finish("frame-in-export", s)
    fseq = next(r["seq"] for r in s.records() if r["type"] == "frame")
    expected.append({"case": "frame-in-export", "file": f, "sessionId": s.session_id, "findings": [
        {"rule": "policy.frame-in-export", "seq": fseq, "line": fseq + 1}],
        "what": "a frame record (its token is redacted, so no secret finding)"})

    # 8. a record type this version does not know
    s = small_session(108, 8)
    s.raw(1.2, "metric", {"name": "app.launch.duration", "value": 0.84, "unit": "s"})
    f = finish("unknown-record-type", s)
    useq = next(r["seq"] for r in s.records() if r["type"] == "metric")
    expected.append({"case": "unknown-record-type", "file": f, "sessionId": s.session_id, "findings": [
        {"rule": "integrity.unknown-record-type", "seq": useq, "line": useq + 1, "severity": "info"}],
        "also": "records.unknown = 1 and recordCount includes it; not a failure",
        "what": "a record of type \"metric\""})

    # 9. body sizes that don't match the bytes (inline text and blob storedSize)
    s = small_session(109, 9)
    body = add_blob_record(s, 1.3, catalog_payload(random.Random(91), 3, 140))
    recs = s.records()
    ls = []
    inline_seq = blob_seq = None
    for r in recs:
        if r["type"] == "network" and r["label"] == "pb.cart.get":
            r["response"]["body"]["size"] += 17
            inline_seq = r["seq"]
        if r["type"] == "network" and r["label"] == "pb.catalog.list":
            r["response"]["body"]["storedSize"] -= 1000
            r["response"]["body"]["size"] -= 1000
            blob_seq = r["seq"]
        ls.append((compact(r) + "\n").encode("utf-8"))
    f = finish("body-size-mismatch", s, ls)
    expected.append({"case": "body-size-mismatch", "file": f, "sessionId": s.session_id, "findings": [
        {"rule": "integrity.body-size-mismatch", "seq": inline_seq, "location": "response.body"},
        {"rule": "integrity.body-size-mismatch", "seq": blob_seq, "location": "response.body"}],
        "what": "an inline text body whose size says 17 bytes more than its text; a blob body whose "
                "size/storedSize say 1000 bytes less than the blob file"})

    # 10. an inline body over the SDK's 32 KiB inline limit
    s = small_session(110, 10)
    big = catalog_payload(random.Random(111), 5, 140).decode("utf-8")
    assert len(big.encode("utf-8")) > INLINE_LIMIT
    s.network(1.3, "GET", API + "/v1/catalog?page=5", category="generated", label="pb.catalog.list",
              operation="pb.catalog.list", request_id=True, req_headers=sdk_req_headers(),
              resp_headers=api_resp_headers(s.at(1.5) + SERVER_SKEW_US), resp_body=body_text(big), status=200,
              txns=[api_tx(API + "/v1/catalog?page=5", 200, 150.0, down=12.0)], server={"ms": 120.0})
    f = finish("inline-body-too-large", s)
    expected.append({"case": "inline-body-too-large", "file": f, "sessionId": s.session_id, "findings": [
        {"rule": "limits.inline-body-too-large", "seq": s.seq_of(s.requests[-1]["record"]),
         "location": "response.body"}],
        "what": "a %d-byte body stored inline (limit 32768)" % len(big.encode("utf-8"))})

    # archive-level damage (small)
    s = small_session(111, 11)
    files = export_tree([s], exported)
    # a zip whose stored entry's CRC does not match its bytes
    zb = bytearray(zip_bytes(files, prefix="PalbeConsole/", compress=zipfile.ZIP_STORED))
    name = ("PalbeConsole/sessions/%s.jsonl" % s.session_id).encode()
    pos = zb.find(name)  # local header name; data follows
    data_pos = pos + len(name) + 40
    zb[data_pos] = zb[data_pos] ^ 0x20
    with open(os.path.join(base, "crc-mismatch.zip"), "wb") as fh:
        fh.write(bytes(zb))
    expected.append({"case": "crc-mismatch.zip", "file": "damaged/crc-mismatch.zip", "sessionId": s.session_id,
                     "findings": [{"rule": "archive.crc-mismatch",
                                   "entry": "PalbeConsole/sessions/%s.jsonl" % s.session_id}],
                     "exit": 2, "what": "a stored (uncompressed) zip entry with one bit flipped in its data"})
    # a tar.gz cut short
    tgz = gz(tar_bytes(tree_entries(files)))
    with open(os.path.join(base, "truncated.tar.gz"), "wb") as fh:
        fh.write(tgz[: int(len(tgz) * 0.6)])
    expected.append({"case": "truncated.tar.gz", "file": "damaged/truncated.tar.gz", "sessionId": s.session_id,
                     "findings": [{"rule": "archive.truncated"}], "exit": 2,
                     "what": "a gzip'd tar cut at 60%: input partial, records before the cut still count"})
    # a tar with hostile names and a link
    hostile = tree_entries(files) + [
        ("../../escape/sessions/ses_00000000-0000-4000-8000-000000000000.jsonl", b"{}\n", {}),
        ("/abs/sessions/ses_00000000-0000-4000-8000-000000000001.jsonl", b"{}\n", {}),
        ("sessions/ses_00000000-0000-4000-8000-000000000002.jsonl", None, {"symlink": "/etc/passwd"})]
    with open(os.path.join(base, "unsafe-paths.tar"), "wb") as fh:
        fh.write(tar_bytes(hostile))
    expected.append({"case": "unsafe-paths.tar", "file": "damaged/unsafe-paths.tar", "sessionId": s.session_id,
                     "findings": [{"rule": "archive.unsafe-path", "entry": hostile[-3][0]},
                                  {"rule": "archive.unsafe-path", "entry": hostile[-2][0]},
                                  {"rule": "archive.link-skipped", "entry": hostile[-1][0]}],
                     "exit": 2, "what": "a good export plus a ../ name, an absolute name and a symlink; "
                                        "the good session is still read"})

    with open(os.path.join(base, "EXPECTED-FINDINGS.json"), "wb") as fh:
        fh.write((json.dumps({"format": "pbsift-expected-findings", "version": 1, "cases": expected},
                             indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


# ---------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------

GENERATED = ["export-clean", "export-incident.zip", "export-incident.tar.gz", "damaged", "logs",
             "EXPECTED-LEAKS.json", "debug-tail.jsonl"]


def clean_out(out_dir):
    for name in GENERATED:
        p = os.path.join(out_dir, name)
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.remove(p)
    for name in os.listdir(out_dir):
        if name.startswith("ses_") and (name.endswith(".jsonl") or name.endswith(".jsonl.gz")):
            os.remove(os.path.join(out_dir, name))


# ---------------------------------------------------------------------------------------------
# Self-check: freshness and structure
# ---------------------------------------------------------------------------------------------

def tree_files(root):
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            p = os.path.join(dirpath, name)
            out[os.path.relpath(p, root).replace(os.sep, "/")] = p
    return out


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def check_export(files, label, problems, strict=True):
    """files: {relative path: bytes} of one export root. Checks lines, seqs, bodies and blobs."""
    referenced = set()
    sessions = [k for k in files if k.startswith("sessions/") and k.endswith(".jsonl")]
    if not sessions:
        problems.append("%s: no session file" % label)
    for name in sessions:
        lines = files[name].split(b"\n")
        if lines[-1] != b"":
            problems.append("%s/%s: no final newline" % (label, name))
        lines = lines[:-1]
        for i, raw in enumerate(lines, 1):
            try:
                rec = json.loads(raw.decode("utf-8"))
            except ValueError as e:
                problems.append("%s/%s:%d: not JSON (%s)" % (label, name, i, e))
                continue
            if rec.get("seq") != i - 1:
                problems.append("%s/%s:%d: seq %r" % (label, name, i, rec.get("seq")))
            if i == 1 and rec.get("type") != "session":
                problems.append("%s/%s: first line is not the header" % (label, name))
            for side in ("request", "response"):
                body = (rec.get(side) or {}).get("body")
                if not body:
                    continue
                if "text" in body and len(body["text"].encode("utf-8")) != body["size"]:
                    problems.append("%s/%s:%d: %s text size" % (label, name, i, side))
                if "data" in body and len(base64.b64decode(body["data"])) != body["size"]:
                    problems.append("%s/%s:%d: %s data size" % (label, name, i, side))
                if "text" in body and body["size"] > INLINE_LIMIT:
                    problems.append("%s/%s:%d: inline body over 32 KiB" % (label, name, i))
                if "blob" in body:
                    hexd = body["blob"][7:]
                    path = "blobs/%s/%s" % (hexd[:2], hexd)
                    referenced.add(path)
                    data = files.get(path)
                    if data is None:
                        problems.append("%s/%s:%d: blob missing" % (label, name, i))
                    elif len(data) != body["storedSize"] or len(data) <= INLINE_LIMIT:
                        problems.append("%s/%s:%d: blob size" % (label, name, i))
    for path, data in files.items():
        if path.startswith("blobs/"):
            hexd = path.split("/")[-1]
            if sha256_hex(data) != hexd or path.split("/")[1] != hexd[:2]:
                problems.append("%s/%s: blob hash mismatch" % (label, path))
            if strict and path not in referenced:
                problems.append("%s/%s: orphan blob" % (label, path))


def check(out):
    """Regenerate into a temp dir, compare with `out` byte for byte, then validate `out`."""
    import tempfile
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        main(["--out", tmp])
        fresh, have = tree_files(tmp), tree_files(out)
        have = {k: v for k, v in have.items() if k != "generate.py" and "__pycache__" not in k}
        for k in sorted(set(fresh) | set(have)):
            if k not in have:
                problems.append("%s: missing (samples/ is out of date: run python3 samples/generate.py)" % k)
            elif k not in fresh:
                problems.append("%s: not generated (stale file?)" % k)
            elif read_bytes(fresh[k]) != read_bytes(have[k]):
                problems.append("%s: differs (samples/ is out of date: run python3 samples/generate.py)" % k)

    # structure
    clean_root = os.path.join(out, "export-clean", "PalbeConsole")
    clean = {k: read_bytes(p) for k, p in tree_files(clean_root).items()}
    check_export(clean, "export-clean", problems)
    with zipfile.ZipFile(os.path.join(out, "export-incident.zip")) as z:
        if z.testzip() is not None:
            problems.append("export-incident.zip: bad CRC")
        zfiles = {i.filename[len("PalbeConsole/"):]: z.read(i) for i in z.infolist() if not i.is_dir()}
        if any(i.compress_type != zipfile.ZIP_DEFLATED for i in z.infolist() if not i.is_dir()):
            problems.append("export-incident.zip: an entry is not deflated")
    check_export(zfiles, "export-incident.zip", problems)
    with tarfile.open(os.path.join(out, "export-incident.tar.gz")) as t:
        tfiles = {m.name: t.extractfile(m).read() for m in t.getmembers() if m.isfile()}
    if tfiles != zfiles:
        problems.append("export-incident.tar.gz: differs from the zip's tree")
    for name in os.listdir(out):
        if name.startswith("ses_") and name.endswith(".jsonl"):
            check_export({"sessions/" + name: read_bytes(os.path.join(out, name))}, name, problems)
        if name.startswith("ses_") and name.endswith(".jsonl.gz"):
            check_export({"sessions/" + name[:-3]: gzip.decompress(read_bytes(os.path.join(out, name)))},
                         name, problems)

    # standard input sample: records only, seq 1, 2, 3, ...
    tail = read_bytes(os.path.join(out, "debug-tail.jsonl")).split(b"\n")
    for i, raw in enumerate(tail[:-1], 1):
        rec = json.loads(raw.decode("utf-8"))
        if rec.get("seq") != i or rec.get("type") == "session":
            problems.append("debug-tail.jsonl:%d: seq %r / type %r" % (i, rec.get("seq"), rec.get("type")))

    # planted leaks: each value is exactly where the list says, and nowhere else
    doc = json.loads(read_bytes(os.path.join(out, "EXPECTED-LEAKS.json")).decode("utf-8"))
    by_fp = {fingerprint(v): v for v in SECRETS.values()}
    sess = zfiles[doc["leaks"][0]["file"]].split(b"\n")
    expected_places = set()
    for lk in doc["leaks"]:
        value = by_fp.get(lk["fingerprint"])
        if value is None:
            problems.append("EXPECTED-LEAKS: unknown fingerprint %s" % lk["fingerprint"])
            continue
        where = zfiles[lk["blob"]] if "blob" in lk else sess[lk["line"] - 1]
        text = where.decode("utf-8")
        if "(gzip)" in lk["location"]:
            rec = json.loads(text)
            text = gzip.decompress(base64.b64decode(rec["request"]["body"]["data"])).decode("utf-8")
        if value not in text:
            problems.append("EXPECTED-LEAKS: seq %d does not hold its %s value" % (lk["seq"], lk["rule"]))
        expected_places.add(lk["blob"] if "blob" in lk else lk["line"])
    for value in SECRETS.values():
        for i, line in enumerate(sess, 1):
            if value.encode() in line and i not in expected_places:
                problems.append("a planted value is also on line %d" % i)
        for k, data in list(clean.items()) + [(k, v) for k, v in zfiles.items() if k.startswith("blobs/")]:
            if value.encode() in data and k not in expected_places:
                problems.append("a planted value is also in %s" % k)
    me = read_bytes(os.path.abspath(__file__)).decode("utf-8")
    for key, value in SECRETS.items():
        if value in me:
            problems.append("generate.py holds the literal value of %s" % key)

    # server logs: every id the server saw is there; the client-only one is nowhere
    logs = b""
    for name in sorted(os.listdir(os.path.join(out, "logs"))):
        data = read_bytes(os.path.join(out, "logs", name))
        logs += gzip.decompress(data) if name.endswith(".gz") else data
    for rid in doc["incident"]["clientOnlyRequestIds"]:
        if rid.encode() in logs:
            problems.append("client-only id %s is in the logs" % rid)
    for raw in sess[1:]:
        if not raw:
            continue
        rec = json.loads(raw.decode("utf-8"))
        rid = rec.get("echoedRequestId") or rec.get("requestId")
        if rid and rid not in doc["incident"]["clientOnlyRequestIds"] and rid.encode() not in logs:
            problems.append("seq %d: id %s not in the server logs" % (rec["seq"], rid))

    total = sum(os.path.getsize(p) for p in tree_files(out).values())
    if total > 2 * 1024 * 1024:
        problems.append("samples/ is %d bytes (over 2 MiB)" % total)
    for p in problems:
        print("check: " + p, file=sys.stderr)
    print("check: %s (%d files, %d bytes)" % ("ok" if not problems else "%d problems" % len(problems),
                                             len(tree_files(out)), total))
    return 1 if problems else 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)),
                    help="where to write (default: the folder holding this script)")
    ap.add_argument("--check", action="store_true",
                    help="write nothing: regenerate into a temp dir, compare with --out byte for byte, and "
                         "validate every session line, blob hash and planted leak; exit 1 on a problem")
    args = ap.parse_args(argv)
    out = args.out
    if args.check:
        return check(out)
    os.makedirs(out, exist_ok=True)
    clean_out(out)

    # 1. the clean folder export
    clean = build_clean_session(11, us_at(2026, 11, 28, 18, 2, 11, 250000), "usr_456", 3, with_blob=True,
                                device={"model": "iPhone15,3", "system": "iOS 18.1", "locale": "de_DE",
                                        "timeZone": "Europe/Berlin"})
    write_folder(os.path.join(out, "export-clean", "PalbeConsole"),
                 export_tree([clean], us_at(2026, 11, 28, 18, 9, 40, 118000)))

    # 2. the incident, as zip (PalbeConsole/ on top, deflate) and tar.gz (no top folder)
    inc = Incident()
    files = export_tree([inc.s], us_at(2026, 11, 29, 10, 31, 7, 512000))
    with open(os.path.join(out, "export-incident.zip"), "wb") as f:
        f.write(zip_bytes(files, prefix="PalbeConsole/"))
    with open(os.path.join(out, "export-incident.tar.gz"), "wb") as f:
        f.write(gz(tar_bytes(tree_entries(files))))

    # 3. bare session files: the same user's previous launch, and a signed-out launch (2 gzip members)
    previous = build_clean_session(21, us_at(2026, 11, 29, 8, 42, 17, 431000), "usr_123", 6, with_blob=False)
    with open(os.path.join(out, previous.session_id + ".jsonl"), "wb") as f:
        f.write(previous.jsonl())
    anonymous = build_clean_session(31, us_at(2026, 11, 29, 9, 30, 2, 77000), None, 6, with_blob=False,
                                    short=True, device={"model": "iPhone14,7", "system": "iOS 17.6.1",
                                                        "locale": "fr_FR", "timeZone": "Europe/Paris"})
    ls = anonymous.lines()
    half = len(ls) // 2
    part1 = ("\n".join(ls[:half]) + "\n").encode("utf-8")
    part2 = ("\n".join(ls[half:]) + "\n").encode("utf-8")
    with open(os.path.join(out, anonymous.session_id + ".jsonl.gz"), "wb") as f:
        f.write(gz(part1) + gz(part2))

    # 3b. standard input: records as `palbase debug tail --json` prints them (no header line)
    with open(os.path.join(out, "debug-tail.jsonl"), "wb") as f:
        f.write(("\n".join(previous.lines()[1:]) + "\n").encode("utf-8"))

    # 4. server logs
    logs_info = write_logs(out, inc, previous, anonymous)

    # 5. damaged exports
    write_damaged(out)

    # 6. the planted-leak list
    sess_file = "sessions/%s.jsonl" % inc.s.session_id
    leaks = inc.expected_leaks(sess_file)
    recs = inc.s.records()
    timeout = next(r for r in recs if r.get("id") == inc.timeout_rec["id"])
    doc = {
        "format": "pbsift-expected-leaks", "version": 1,
        "note": "synthetic credentials planted by samples/generate.py; values spell EXAMPLE/FAKE/0000",
        "inputs": ["export-incident.zip", "export-incident.tar.gz"],
        "inputRoots": {"export-incident.zip": "PalbeConsole/", "export-incident.tar.gz": ""},
        "sessionId": inc.s.session_id, "userId": inc.s.user_id,
        "leaks": leaks,
        "cleanInputs": ["export-clean", previous.session_id + ".jsonl", anonymous.session_id + ".jsonl.gz",
                        "debug-tail.jsonl (stdin)"],
        "incident": {
            "records": len(recs) - 1,
            "timedOut": {"seq": timeout["seq"], "requestId": timeout["requestId"]},
            "clientOnlyRequestIds": [timeout["requestId"]],
            "echoMismatch": [{"seq": r["seq"], "requestId": r["requestId"], "echoedRequestId": r["echoedRequestId"]}
                             for r in recs if r["type"] == "network" and r.get("echoedRequestId")
                             and r["echoedRequestId"] != r.get("requestId")],
            "pending": [r["seq"] for r in recs if r["type"] == "network" and r["state"] == "pending"],
            "serverOnlyWithUser": logs_info["ownServerOnly"],
            "clockSkewSeconds": SERVER_SKEW_US / 1000000.0,
            "nearMissUuid": logs_info["nearMiss"],
            "sharedBlob": inc.catalog_body["blob"],
        },
    }
    with open(os.path.join(out, "EXPECTED-LEAKS.json"), "wb") as f:
        f.write((json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
