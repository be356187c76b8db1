#!/usr/bin/env python3
"""Score a secret scanner against the leaks planted in samples/ (samples/EXPECTED-LEAKS.json).

    leak_recall.py pbsift VERIFY.json [EXPECTED-LEAKS.json]
    leak_recall.py detect-secrets BASELINE.json [EXPECTED-LEAKS.json]

VERIFY.json is `pbsift verify --format json` over the incident export and the clean samples;
BASELINE.json is `detect-secrets scan --all-files` over the same files unpacked. Prints one JSON
object: planted, found, recall, falseAlarms, missed (rules). Stdlib only.

Matching:
- pbsift: a planted leak is found when a finding of the same session and seq has the expected rule
  or the expected fingerprint (`exactRule` counts the rule matches alone). A `secret.*` or
  `redaction.*` finding at no planted (session, seq) is a false alarm.
- detect-secrets: a planted leak is found when a result's `hashed_secret` (SHA-1 of what it caught)
  is the SHA-1 of the planted value, or when a named detector (not the generic high-entropy ones)
  fires on the planted line; every other result is a false alarm (base64 images, hashes, ids: none
  of them is a credential).
"""

import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(os.path.dirname(HERE), "samples")


def planted_values():
    """The planted values, from the generator (they are never written down as literals)."""
    sys.path.insert(0, SAMPLES)
    sys.dont_write_bytecode = True
    try:
        import generate  # noqa: E402
    finally:
        sys.path.pop(0)
    return {generate.fingerprint(v): v for v in generate.SECRETS.values()}


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def score_pbsift(doc, expected):
    findings = doc.get("findings", [])
    leaks = expected["leaks"]
    seqs = {(lk["sessionId"], lk["seq"]) for lk in leaks}
    found, exact, missed = 0, 0, []
    for lk in leaks:
        same = [f for f in findings if f.get("sessionId") == lk["sessionId"] and f.get("seq") == lk["seq"]]
        by_rule = any(f.get("rule") == lk["rule"] for f in same)
        by_fp = any(f.get("fingerprint") == lk["fingerprint"] for f in same)
        if by_rule or by_fp:
            found += 1
        else:
            missed.append(lk["rule"])
        if by_rule:
            exact += 1
    false_alarms = [f for f in findings
                    if str(f.get("rule", "")).startswith(("secret.", "redaction."))
                    and (f.get("sessionId"), f.get("seq")) not in seqs]
    return {"tool": "pbsift verify", "planted": len(leaks), "found": found, "exactRule": exact,
            "recall": round(found / len(leaks), 3) if leaks else None, "falseAlarms": len(false_alarms),
            "falseAlarmRules": sorted(set(f.get("rule") for f in false_alarms)), "missed": missed}


def score_detect_secrets(doc, expected):
    values = planted_values()
    by_sha1 = {}
    for lk in expected["leaks"]:
        v = values.get(lk["fingerprint"])
        if v is not None:
            by_sha1[hashlib.sha1(v.encode("utf-8")).hexdigest()] = lk
    by_place = {}
    for lk in expected["leaks"]:
        if "blob" in lk:
            by_place[(lk["blob"], lk.get("blobLine", 1))] = lk
        else:
            by_place[(lk["file"], lk["line"])] = lk
    results = [(name, r) for name, rs in doc.get("results", {}).items() for r in rs]
    hit = set()
    false_alarms = []
    generic = ("Base64 High Entropy String", "Hex High Entropy String")
    for name, r in results:
        lk = by_sha1.get(r.get("hashed_secret"))
        if lk is None and r.get("type") not in generic:
            # a named detector on the planted line that caught only part of the value (its JWT
            # pattern stops after the payload, for one)
            for (path, line), cand in by_place.items():
                if name.replace(os.sep, "/").endswith(path) and r.get("line_number") == line:
                    lk = cand
        if lk is not None:
            hit.add((lk["seq"], lk["rule"]))
        else:
            false_alarms.append(r.get("type"))
    leaks = expected["leaks"]
    missed = [lk["rule"] for lk in leaks if (lk["seq"], lk["rule"]) not in hit]
    types = {}
    for t in false_alarms:
        types[t] = types.get(t, 0) + 1
    return {"tool": "detect-secrets", "planted": len(leaks), "found": len(hit),
            "recall": round(len(hit) / len(leaks), 3) if leaks else None, "falseAlarms": len(false_alarms),
            "falseAlarmTypes": types, "missed": missed}


def main(argv):
    if len(argv) < 2 or argv[0] not in ("pbsift", "detect-secrets"):
        print(__doc__, file=sys.stderr)
        return 64
    expected = load(argv[2] if len(argv) > 2 else os.path.join(SAMPLES, "EXPECTED-LEAKS.json"))
    doc = load(argv[1])
    score = score_pbsift(doc, expected) if argv[0] == "pbsift" else score_detect_secrets(doc, expected)
    print(json.dumps(score, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
