#!/usr/bin/env python3
"""pbsift, gitleaks and detect-secrets side by side on a real-token set, each at its default threshold.

    token_compare.py SET [--pbsift PATH] [--json]

SET is a folder (or a .tar.gz holding one folder) laid out as:
    exports/<name>/*.jsonl          session files, one credential or one clean value per record
    data/<name>_manifest.json       [{"seq": N, "class": "bare|context|keyword", ...}, ...]
Names starting with `leaky` hold credentials, the others clean values. A record counts as flagged when
a tool reports anything on its line: pbsift at `--fail-on high` (its CI gate: high or critical, of the
secret, redaction and policy families); gitleaks (`gitleaks dir`, every finding: it has no severity);
detect-secrets (`detect-secrets scan --all-files`, every result). Prints recall on the credentials
(overall and per class), false alarms on the clean values, and each tool's time. Stdlib only; a tool
that is not installed is reported as missing.
"""

import collections
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

SEV = {"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}


def open_set(path):
    if os.path.isdir(path):
        return path
    dest = tempfile.mkdtemp(prefix="token-set-")
    with tarfile.open(path) as t:
        t.extractall(dest, filter="data")
    inner = [os.path.join(dest, d) for d in os.listdir(dest)]
    return inner[0] if len(inner) == 1 and os.path.isdir(inner[0]) else dest


def line_seqs(folder):
    """(file name, line number from 1) -> seq, for every record line."""
    out = {}
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                try:
                    seq = json.loads(line).get("seq")
                except (ValueError, AttributeError):
                    continue
                if isinstance(seq, int):
                    out[(name, n)] = seq
    return out


def findings(doc, out):
    if isinstance(doc, dict):
        if isinstance(doc.get("rule"), str):
            out.append(doc)
        for v in doc.values():
            findings(v, out)
    elif isinstance(doc, list):
        for v in doc:
            findings(v, out)
    return out


def pbsift_flags(binary, folder):
    r = subprocess.run([binary, "verify", folder, "--json", "--fail-on", "never"], capture_output=True, timeout=900)
    flagged = set()
    for f in findings(json.loads(r.stdout), []):
        family = f["rule"].split(".")[0]
        if f.get("seq") is not None and family in ("secret", "redaction", "policy") and SEV.get(f.get("severity"), 0) >= 3:
            flagged.add(f["seq"])
    return flagged


def gitleaks_flags(folder):
    seqs = line_seqs(folder)
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        subprocess.run(["gitleaks", "dir", folder, "--report-format", "json", "--report-path", report,
                        "--no-banner", "--exit-code", "0", "--log-level", "error"], capture_output=True, timeout=900)
        doc = json.load(open(report)) if os.path.exists(report) else []
    flagged = set()
    for f in doc:
        key = (os.path.basename(f.get("File", "")), f.get("StartLine"))
        if key in seqs:
            flagged.add(seqs[key])
    return flagged


def detect_secrets_flags(folder):
    seqs = line_seqs(folder)
    # Run inside the folder: from within a git work tree detect-secrets lists only that tree's files.
    r = subprocess.run(["detect-secrets", "scan", "--all-files", "."], cwd=folder, capture_output=True, timeout=900)
    doc = json.loads(r.stdout or b"{}")
    flagged = set()
    for path, results in doc.get("results", {}).items():
        for res in results:
            key = (os.path.basename(path), res.get("line_number"))
            if key in seqs:
                flagged.add(seqs[key])
    return flagged


def score(root, tools):
    names = sorted(n[: -len("_manifest.json")] for n in os.listdir(os.path.join(root, "data")) if n.endswith("_manifest.json"))
    results = {}
    for tool, run in tools.items():
        rows = collections.defaultdict(lambda: [0, 0])
        fa = [0, 0]
        spent = 0.0
        for name in names:
            folder = os.path.join(root, "exports", name)
            start = time.monotonic()
            flagged = run(folder)
            spent += time.monotonic() - start
            for item in json.load(open(os.path.join(root, "data", name + "_manifest.json"))):
                hit = item["seq"] in flagged
                if name.startswith("leaky"):
                    for key in ("all", item.get("class") or "?"):
                        rows[key][0] += 1
                        rows[key][1] += hit
                else:
                    fa[0] += 1
                    fa[1] += hit
        results[tool] = {
            "recall": {k: {"n": n, "found": f, "rate": round(f / n, 4)} for k, (n, f) in rows.items()},
            "falseAlarms": {"n": fa[0], "flagged": fa[1], "rate": round(fa[1] / fa[0], 4) if fa[0] else 0},
            "seconds": round(spent, 2),
        }
    return results


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    binary = os.path.abspath(args[args.index("--pbsift") + 1]) if "--pbsift" in args else \
        os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".build", "release", "pbsift")
    root = open_set(args[0])
    tools = {"pbsift (--fail-on high)": lambda d: pbsift_flags(binary, d)}
    missing = []
    for name, run in (("gitleaks 8 (every finding)", gitleaks_flags), ("detect-secrets (every result)", detect_secrets_flags)):
        if shutil.which(name.split()[0]):
            tools[name] = run
        else:
            missing.append(name.split()[0])
    results = score(root, tools)
    if "--json" in args:
        print(json.dumps({"tools": results, "missing": missing}, indent=2))
        return
    classes = sorted({k for r in results.values() for k in r["recall"] if k != "all"})
    print("| tool | recall | " + " | ".join(f"recall, {c}" for c in classes) + " | false alarms | time |")
    print("|---|---|" + "---|" * len(classes) + "---|---|")
    for tool, r in results.items():
        rec = r["recall"]
        cells = [f"{rec['all']['rate']:.0%} ({rec['all']['found']}/{rec['all']['n']})"]
        cells += [f"{rec[c]['rate']:.0%}" if c in rec else "-" for c in classes]
        fa = r["falseAlarms"]
        print(f"| {tool} | " + " | ".join(cells) + f" | {fa['rate']:.1%} ({fa['flagged']}/{fa['n']}) | {r['seconds']:.2f} s |")
    for m in missing:
        print(f"({m}: not installed)")


if __name__ == "__main__":
    main()
