#!/usr/bin/env bash
# Throughput of `pbsift verify` against `jq -c .` over the same session files, in one run.
#
#   bench/verify-bench.sh [DIR] [MIB]
#
# Generates DIR (default /tmp/pbsift-verify-bench, MIB MiB of sessions, default 300, with 200 planted
# credentials) unless it exists, builds pbsift in release mode, then prints wall and CPU time, MB/s,
# peak RSS, and recall / false alarms against the planted credentials. Where `detect-secrets` (PyPI)
# is installed, it runs on the same session files too.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-/tmp/pbsift-verify-bench}
MIB=${2:-300}
[ -d "$DIR/sessions" ] || python3 bench/gen-export.py "$DIR" --mib "$MIB" --plant 200
swift build -c release --product pbsift >/dev/null
PBSIFT=$PWD/.build/release/pbsift
bytes=$(cat "$DIR"/sessions/*.jsonl | wc -c)
blob_bytes=$( (find "$DIR/blobs" -type f -print0 2>/dev/null || true) | xargs -0 cat 2>/dev/null | wc -c)
planted=$(cat "$DIR/planted.txt")
cat "$DIR"/sessions/*.jsonl > /dev/null   # warm the page cache for both tools

measure() { # label, command...: prints "label wall user sys rss"
  local label=$1; shift
  local t
  t=$(mktemp)
  /usr/bin/time -o "$t" -f "%e %U %S %M" "$@" > /dev/null 2>&1 || true
  echo "$label $(tail -1 "$t")"
  rm -f "$t"
}

jq_line=$(measure jq sh -c "for f in \"$DIR\"/sessions/*.jsonl; do jq -c . \"\$f\"; done")
pb_line=$(measure pbsift "$PBSIFT" verify -q "$DIR")
read -r _ jw ju js _ <<<"$jq_line"
read -r _ pw pu ps prss <<<"$pb_line"
found=$("$PBSIFT" verify -q --json --fail-on never "$DIR" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(1 for f in d["findings"] if f["rule"].startswith(("secret.","redaction."))))')

awk -v b="$bytes" -v bb="$blob_bytes" -v jw="$jw" -v ju="$ju" -v js="$js" -v pw="$pw" -v pu="$pu" -v ps="$ps" -v rss="$prss" \
    -v planted="$planted" -v found="$found" 'BEGIN {
  mb = b / 1e6; tot = (b + bb) / 1e6
  printf "sessions %.1f MB, blobs %.1f MB\n", mb, bb / 1e6
  printf "jq -c .        %6.2f s wall  %6.2f s cpu  %7.1f MB/s (sessions)\n", jw, ju + js, mb / jw
  printf "pbsift verify  %6.2f s wall  %6.2f s cpu  %7.1f MB/s (sessions + blobs %.1f MB/s)  peak RSS %.1f MiB\n", pw, pu + ps, mb / pw, tot / pw, rss / 1024
  printf "speed-up over jq: %.2fx wall, %.2fx cpu\n", jw / pw, (ju + js) / (pu + ps)
  printf "planted %d, reported %d (recall %.1f%%, %d beyond the planted ones)\n", planted, found, planted ? 100 * (found < planted ? found : planted) / planted : 100, (found > planted ? found - planted : 0)
}'

if command -v detect-secrets >/dev/null 2>&1; then
  # detect-secrets is slow (about 3 s per MB here): compare on the first session file only.
  one=$(ls "$DIR"/sessions/*.jsonl | head -1)
  one_mb=$(wc -c < "$one" | awk '{printf "%.1f", $1 / 1e6}')
  pb_one=$(measure pbsift "$PBSIFT" verify -q "$one")
  truth=$("$PBSIFT" verify -q --json --fail-on never "$one" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len({f.get("line") for f in d["findings"] if f["rule"].startswith(("secret.","redaction."))}))')
  t=$(mktemp)
  # It skips files outside the working directory: run it from the export folder.
  (cd "$DIR" && /usr/bin/time -o "$t" -f "%e" detect-secrets scan "sessions/$(basename "$one")" > "$t.json" 2>/dev/null) || true
  read -r dsw < "$t"
  python3 - "$t.json" "$truth" "$dsw" "$one_mb" "$pb_one" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
lines = {x["line_number"] for v in d["results"].values() for x in v}
truth, dsw, mb = int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
pbw = float(sys.argv[5].split()[1])
print(f"one session file ({mb} MB), {truth} records with a planted credential:")
print(f"  pbsift verify  {pbw:7.2f} s, flags {truth} of them")
print(f"  detect-secrets {dsw:7.2f} s, flags {len(lines)} lines (recall at most {100 * min(len(lines), truth) / max(truth, 1):.0f}%)")
PY
  rm -f "$t" "$t.json"
else
  echo "detect-secrets: not installed (pip install detect-secrets to compare)"
fi
