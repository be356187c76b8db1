#!/usr/bin/env bash
# bench/rules.sh: verify's time on the bench store with 0, 100, 300 and 600 extra rules (a team's
# gitleaks config, each rule with its own keyword and pattern), against `jq -c .` over the same
# session files in the same run. The keywords join the anchor prefilter, so the cost should stay flat
# in the number of rules; the table says whether it does.
#
# Environment: BENCH_DIR (the store of bench/run.sh; generated with it when missing), RUNS (hyperfine
# runs, default 3), COUNTS (default "0 100 300 600"), PBSIFT (the binary; default the release build),
# OUT (default bench/out).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH_DIR=${BENCH_DIR:-/tmp/pbsift-bench}
RUNS=${RUNS:-3}
COUNTS=${COUNTS:-"0 100 300 600"}
OUT=${OUT:-$ROOT/bench/out}
BIN=${PBSIFT:-$ROOT/.build/release/pbsift}
mkdir -p "$OUT"
[ -x "$BIN" ] || { echo "no binary at $BIN: swift build -c release" >&2; exit 1; }
if [ ! -d "$BENCH_DIR/store" ]; then
    python3 "$ROOT/bench/gen_store.py" --out "$BENCH_DIR" --store-mib 127 --logs-gib 0 >&2
fi
STORE=$BENCH_DIR/store
for n in $COUNTS; do
    python3 - "$n" "$OUT/rules-$n.toml" <<'PY'
import sys
n, path = int(sys.argv[1]), sys.argv[2]
with open(path, "w") as f:
    f.write('title = "bench: %d team rules"\n' % n)
    for k in range(n):
        # Each rule: its own vendor prefix as keyword, a 32-character body, an entropy floor.
        f.write('\n[[rules]]\nid = "vendor-%04d"\nregex = \'\'\'v%04dk_[A-Za-z0-9]{32}\'\'\'\nkeywords = ["v%04dk_"]\nentropy = 3.0\n' % (k, k, k))
PY
done
args=()
for n in $COUNTS; do args+=(-n "pbsift verify, $n rules" "$BIN verify -q --rules $OUT/rules-$n.toml --format json $STORE > /dev/null || true"); done
args+=(-n "jq -c ." "jq -c . $BENCH_DIR/all.jsonl > /dev/null")
hyperfine --warmup 1 --runs "$RUNS" --export-json "$OUT/rules.json" "${args[@]}" >&2
python3 - "$OUT/rules.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
jq = r["jq -c ."]["min"]
print("| rules | verify (min of runs) | jq -c . | ratio |")
print("|---|---|---|---|")
for name, x in r.items():
    if name.startswith("pbsift"):
        n = name.split(", ")[1].split()[0]
        print("| %s | %.3f s | %.3f s | %.2fx |" % (n, x["min"], jq, jq / x["min"]))
PY
