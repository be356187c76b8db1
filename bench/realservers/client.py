# Sends the requests of one run, records device times (wall clock minus SKEW), writes an export.
import http.client, json, os, sys, time, uuid, random
SKEW = 2.508
def iso(t): return time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(t)) + '.%06dZ' % int(round((t % 1) * 1e6) % 1000000)
def run(port, out, n=10, seed=1, host='127.0.0.1'):
    rnd = random.Random(seed)
    plan = [('POST', '/v1/auth/token', 'client=ios', 40), ('GET', '/v1/flags', 'keys=a', 12), ('GET', '/v1/catalog', 'page=1', 120),
            ('GET', '/v1/fail', '', 30), ('GET', '/v1/missing', '', 3), ('GET', '/v1/orders/open', '', 260),
            ('GET', '/v1/profile', '', 7), ('POST', '/v1/cart', 'x=1', 55), ('GET', '/v1/search', 'q=shoes', 90), ('GET', '/v1/img', '', 1)]
    recs = []; truth = []
    sid = 'ses_' + str(uuid.UUID(int=rnd.getrandbits(128)))
    t0 = time.time()
    for k, (m, p, q, sl) in enumerate(plan[:n]):
        rid = 'req_' + str(uuid.UUID(int=rnd.getrandbits(128), version=4))
        qs = (q + '&' if q else '') + f'sleep={sl}'
        c = http.client.HTTPConnection(host, port, timeout=10)
        c.connect()
        body = b'{"a":1}' if m == 'POST' else None
        rs = time.time()
        c.request(m, p + '?' + qs, body=body, headers={'X-Request-Id': rid, 'User-Agent': 'Palbe/3.1.0 (com.acme.shop; iOS 18.1.1) CFNetwork/1568 Darwin/24.1.0'})
        re_ = time.time()
        r = c.getresponse(); fs = time.time()
        data = r.read(); fe = time.time(); c.close()
        echoed = r.getheader('X-Request-Id') or None
        d = lambda t: iso(t - SKEW)
        recs.append({"type": "network", "seq": k + 2, "ts": d(rs), "id": f"rec_{k:08x}", "source": "sdk", "kind": "http", "category": "call",
                     "method": m, "url": f"https://api.example.test/{p.lstrip('/')}?{qs}", "state": "success" if r.status < 400 else "failure",
                     "duration": round(fe - rs, 6), "statusCode": r.status, "requestId": rid, **({"echoedRequestId": echoed} if echoed else {}),
                     "request": {"headers": [{"name": "X-Request-Id", "value": rid}]},
                     "response": {"headers": [{"name": "Content-Type", "value": "application/json"}]},
                     "metrics": {"taskStart": d(rs), "taskEnd": d(fe), "redirectCount": 0, "transactions": [
                         {"fetchStart": d(rs), "requestStart": d(rs), "requestEnd": d(re_), "responseStart": d(fs), "responseEnd": d(fe),
                          "networkProtocol": "http/1.1", "reusedConnection": False, "fetchType": "network", "statusCode": r.status}]}})
        truth.append({"id": rid, "status": r.status, "sleep": sl, "client_ms": (fe - rs) * 1000})
        time.sleep(rnd.uniform(0.05, 0.4))
    os.makedirs(f'{out}/PalbeConsole/sessions', exist_ok=True)
    hdr = {"type": "session", "seq": 0, "ts": iso(t0 - SKEW), "formatVersion": 1, "sessionId": sid, "launchedAt": iso(t0 - SKEW),
           "app": {"bundleId": "com.acme.shop", "version": "4.2.0", "build": "512"}, "sdk": {"name": "palbe-swift", "version": "3.1.0"},
           "device": {"model": "iPhone16,1", "system": "iOS 18.1.1"}, "userId": "usr_123"}
    with open(f'{out}/PalbeConsole/sessions/{sid}.jsonl', 'w') as f:
        for x in [hdr] + recs: f.write(json.dumps(x, separators=(',', ':')) + '\n')
    json.dump({"format": "palbe-console-export", "formatVersion": 1, "exportedAt": iso(time.time() - SKEW), "sessions": [sid], "includesBodies": False},
              open(f'{out}/PalbeConsole/export.json', 'w'))
    json.dump(truth, open(f'{out}/truth.json', 'w'))
if __name__ == '__main__':
    run(int(sys.argv[1]), sys.argv[2], seed=int(sys.argv[3]) if len(sys.argv) > 3 else 1)
