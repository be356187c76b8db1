#!/usr/bin/env bash
# Benchmark of `pbsift correlate` against ripgrep, on 1 GiB of generated JSON log lines holding the
# 200 request ids of one session sparsely, plain and gzip'd, one file and several.
#
#   bench/correlate.sh                 # everything under /tmp/pbsift-correlate-bench
#   SIZE=268435456 RUNS=3 bench/correlate.sh
#
# Targets (issue 5): >= 1.0x ripgrep's throughput on the plain file (`rg -F -f ids.txt file`),
# >= 1.0x `gzip -dc file | rg -F -f ids.txt` on the gzip'd file, peak RSS <= 128 MiB.
# Nothing is written inside the repository; the generated logs stay in $WORK (delete it after).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/tmp/pbsift-correlate-bench}
SIZE=${SIZE:-1073741824}
IDS=${IDS:-200}
RUNS=${RUNS:-5}
PARTS=${PARTS:-4}

need() { command -v "$1" >/dev/null 2>&1; }
missing=()
for t in hyperfine rg pigz; do need "$t" || missing+=("$t"); done
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -gt 0 ]; then
    pkgs=()
    for t in "${missing[@]}"; do case $t in rg) pkgs+=(ripgrep) ;; *) pkgs+=("$t") ;; esac; done
    echo "installing: ${pkgs[*]}" >&2
    apt-get install -y "${pkgs[@]}" >/dev/null
fi

echo "== release build" >&2
(cd "$ROOT" && swift build -c release --product pbsift >/dev/null)
BIN="$ROOT/.build/release/pbsift"

mkdir -p "$WORK"
if [ ! -s "$WORK/api.log" ] || [ "$(stat -c %s "$WORK/api.log")" -lt "$SIZE" ]; then
    echo "== generating $SIZE bytes of JSON log lines with $IDS ids in $WORK" >&2
    rm -rf "$WORK/export" "$WORK/api.log" "$WORK/api.log.gz" "$WORK/parts" "$WORK/parts-gz"
    python3 "$ROOT/bench/gen_logs.py" "$WORK" "$SIZE" "$IDS"
fi
if [ ! -s "$WORK/api.log.gz" ]; then
    echo "== gzip (pigz -6, one member)" >&2
    pigz -6 -c "$WORK/api.log" > "$WORK/api.log.gz"
fi
if [ ! -d "$WORK/parts-gz" ]; then
    echo "== $PARTS rotated files" >&2
    mkdir -p "$WORK/parts" "$WORK/parts-gz"
    (cd "$WORK/parts" && split -n "l/$PARTS" -d -a 2 ../api.log api.log.)
    for f in "$WORK"/parts/api.log.*; do pigz -6 -c "$f" > "$WORK/parts-gz/$(basename "$f").gz"; done
fi

EXPORT="$WORK/export"
IDSF="$WORK/ids.txt"
LOG="$WORK/api.log"
GZ="$WORK/api.log.gz"
BYTES=$(stat -c %s "$LOG")

# Sanity: both tools find the same 200 lines.
got=$("$BIN" correlate "$EXPORT" --logs "$LOG" --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["correlation"]["matched"], d["logs"]["lines"])')
echo "pbsift: matched requests, lines scanned: $got; rg matching lines: $(rg -F -c -f "$IDSF" "$LOG")" >&2

cat "$LOG" "$GZ" "$WORK"/parts-gz/* > /dev/null   # page cache

# --output=pipe: ripgrep stops at the first match when its output is /dev/null.
H=(hyperfine --output=pipe --warmup 1 --runs "$RUNS" --style basic)

echo "== plain, one file ($BYTES bytes)"
"${H[@]}" --export-json "$WORK/plain.json" \
    -n "pbsift correlate" "$BIN correlate $EXPORT --logs $LOG --format json" \
    -n "rg -F -f ids.txt" "rg -F -f $IDSF $LOG"

echo "== gzip, one file"
"${H[@]}" --export-json "$WORK/gzip.json" \
    -n "pbsift correlate (gz)" "$BIN correlate $EXPORT --logs $GZ --format json" \
    -n "gzip -dc | rg" "gzip -dc $GZ | rg -F -f $IDSF"

echo "== gzip, $PARTS rotated files"
"${H[@]}" --export-json "$WORK/parts.json" \
    -n "pbsift correlate ($PARTS gz files)" "$BIN correlate $EXPORT --logs $WORK/parts-gz --format json" \
    -n "gzip -dc | rg (one file)" "gzip -dc $GZ | rg -F -f $IDSF" \
    -n "gzip -dc parts | rg" "gzip -dc $WORK/parts-gz/*.gz | rg -F -f $IDSF"

echo "== peak RSS"
for args in "--logs $LOG" "--logs $GZ" "--logs $WORK/parts-gz"; do
    rss=$(/usr/bin/time -v "$BIN" correlate "$EXPORT" $args --format json 2>&1 >/dev/null | awk -F': ' '/Maximum resident/ {print $2}')
    echo "pbsift correlate $args: ${rss} KiB"
done

echo "== throughput (MB/s of uncompressed log, mean of runs)"
python3 - "$WORK" "$BYTES" <<'EOF'
import json, sys
work, size = sys.argv[1], int(sys.argv[2])
for name in ("plain", "gzip", "parts"):
    d = json.load(open(f"{work}/{name}.json"))["results"]
    base = d[0]["mean"]
    for r in d:
        print(f"{name:6} {r['command']:40} {r['mean']:7.3f} s ± {r['stddev']:.3f}  {size / r['mean'] / 1e6:8.1f} MB/s  "
              f"pbsift speed-up vs this: {r['mean'] / base:5.2f}x")
EOF
