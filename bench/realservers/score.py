import json, subprocess, sys, os
PB = os.environ.get('PBSIFT', 'pbsift')
def score(name, exp, log, extra=()):
    truth = json.load(open(f'{exp}/truth.json'))
    r = subprocess.run([PB, 'correlate', exp, '--logs', log, '--json', *extra], capture_output=True)
    try: d = json.loads(r.stdout)
    except Exception: print('ERR', name, r.stderr[:300]); return
    sk = d['clockSkew']['seconds']; probs = []
    if sk is None or abs(sk - 2.508) > 0.05: probs.append(f'skew {sk}')
    Q = {q.get('requestId'): q for q in d['requests']}
    ex = 0
    for t in truth:
        q = Q.get(t['id']); p = []
        if not q or not q['serverLines']: probs.append(f"{t['id'][4:8]} unjoined"); continue
        sl = q['serverLines']; l = next((x for x in sl if x.get('status') is not None), sl[0])
        if l.get('status') != t['status']: p.append(f"status {l.get('status')}/{t['status']}")
        dm = l.get('durationMs')
        if dm is None or not (t['sleep'] - 1 <= dm <= t['client_ms'] + 5): p.append(f"dur {dm} ({t['sleep']}..{t['client_ms']:.0f})")
        if l.get('ts') is None: p.append('no ts')
        if p: probs.append(f"{t['id'][4:8]} " + ','.join(p))
        else: ex += 1
    f = d['logs']['files'][0] if d['logs']['files'] else {}
    fnd = [x['rule'] for x in d['findings']]
    print(('OK ' if not probs else 'BAD'), f'{name:22s} {ex}/{len(truth)} skew {sk} ± {d["clockSkew"].get("uncertainty")} fmt {f.get("format")} read {f.get("fieldsRead")} {fnd} ' + '; '.join(probs[:5]))
    return ex, len(truth), not probs
if __name__ == '__main__':
    score(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
