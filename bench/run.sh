#!/usr/bin/env bash
# bench/run.sh: release-build pbsift, generate a console store near the SDK's 128 MiB budget, a store
# four times that size and server logs (bench/gen_store.py), then time each pbsift command against
# the tool a support engineer would otherwise use, in one run. For each workload it prints pbsift's
# time, the peer's time, the ratio, MB/s, peak RSS and the cores used (user + sys CPU / wall, from
# bench/timed.py), and PASS or FAIL against the targets (the numbers are printed either way).
#
# Environment:
#   BENCH_DIR    where the data lives (default /tmp/pbsift-bench; generated when missing)
#   STORE_MIB    size of the store (default 127, just under the 128 MiB budget)
#   X4_MIB       size of the large store, in BENCH_DIR/x4 (default 4 x STORE_MIB; 0: no large store)
#   LOGS_GIB     GiB of server logs (default 1; 0: no logs, the correlate workloads are skipped)
#   LOG_PARTS    rotated gzip files the same logs are also cut into (default 4)
#   RUNS         hyperfine runs per command (default 3, plus one warmup); the minimum is kept
#   MIN_CORES    cores a command must use when it has several inputs (default 1.5)
#   OUT          hyperfine's JSON and the table (default bench/out, git-ignored)
#   SKIP_BUILD=1 use the existing release binary
#   PBSIFT=path  time this binary instead (no build)
#   ONLY="inspect verify"  run only these workloads (inspect verify waterfall report report-x4
#                correlate correlate-gz correlate-parts detect-secrets)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH_DIR=${BENCH_DIR:-/tmp/pbsift-bench}
STORE_MIB=${STORE_MIB:-127}
X4_MIB=${X4_MIB:-$(python3 -c 'import sys; print(4 * float(sys.argv[1]))' "$STORE_MIB")}
LOGS_GIB=${LOGS_GIB:-1}
LOG_PARTS=${LOG_PARTS:-4}
RUNS=${RUNS:-3}
MIN_CORES=${MIN_CORES:-1.5}
OUT=${OUT:-$ROOT/bench/out}
ONLY=${ONLY:-}
mkdir -p "$OUT"
ROWS="$OUT/rows.tsv"
: > "$ROWS"
rm -f "$OUT"/*.json "$OUT"/*.time   # results of an earlier run must not leak into this table

# --- tools --------------------------------------------------------------------------------------
missing=()
for t in hyperfine jq rg pigz gzip; do command -v "$t" >/dev/null 2>&1 || missing+=("$t"); done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing: hyperfine ripgrep pigz jq" >&2
        apt-get install -y hyperfine ripgrep pigz jq gzip >&2
    else
        echo "missing: ${missing[*]}. Install them: sudo apt-get install -y hyperfine ripgrep pigz jq" >&2
        exit 1
    fi
fi

# --- build --------------------------------------------------------------------------------------
if [ -n "${PBSIFT:-}" ]; then
    BIN=$PBSIFT
else
    if [ -z "${SKIP_BUILD:-}" ]; then
        (cd "$ROOT" && swift build -c release >&2)
    fi
    BIN="$(cd "$ROOT" && swift build -c release --show-bin-path)/pbsift"
fi
[ -x "$BIN" ] || { echo "no release binary at $BIN" >&2; exit 1; }

# --- data ---------------------------------------------------------------------------------------
GEN="$ROOT/bench/gen_store.py"
manifest_arg() {  # DIR KEY: an argument the data in DIR was generated with ("none" when unknown)
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["args"].get(sys.argv[2], "none"))' \
        "$1/manifest.json" "$2" 2>/dev/null || echo none
}
same() { python3 -c 'import sys; sys.exit(float(sys.argv[1]) != float(sys.argv[2]))' "$1" "$2" 2>/dev/null; }

STORE="$BENCH_DIR/store"
if [ ! -f "$STORE/store.json" ] || [ ! -f "$BENCH_DIR/ids.txt" ] || ! same "$(manifest_arg "$BENCH_DIR" storeMib)" "$STORE_MIB"; then
    python3 "$GEN" --out "$BENCH_DIR" --store-mib "$STORE_MIB" --logs-gib "$LOGS_GIB" --gzip-logs --split-logs "$LOG_PARTS" >&2
elif [ "$LOGS_GIB" != 0 ] && { [ ! -f "$BENCH_DIR/logs/api.log" ] || [ ! -f "$BENCH_DIR/logs-gz/api.log.gz" ] \
        || ! same "$(manifest_arg "$BENCH_DIR" logsGib)" "$LOGS_GIB" \
        || ! same "$(manifest_arg "$BENCH_DIR" splitLogs)" "$LOG_PARTS"; }; then
    python3 "$GEN" --out "$BENCH_DIR" --logs-only --logs-gib "$LOGS_GIB" --gzip-logs --split-logs "$LOG_PARTS" >&2
fi
X4="$BENCH_DIR/x4"
if ! same "$X4_MIB" 0 && { [ ! -f "$X4/store/store.json" ] || ! same "$(manifest_arg "$X4" storeMib)" "$X4_MIB"; }; then
    python3 "$GEN" --out "$X4" --store-mib "$X4_MIB" --seed 512 --no-concat >&2
fi
TARGET=$(cat "$BENCH_DIR/target-session.txt")
IDS="$BENCH_DIR/ids.txt"
LOGS="$BENCH_DIR/logs"
LOGS_GZ="$BENCH_DIR/logs-gz/api.log.gz"
PARTS="$BENCH_DIR/logs-parts-gz"
size_of() { du -cb "$@" 2>/dev/null | tail -1 | cut -f1; }
SESSION_BYTES=$(size_of "$STORE"/sessions/*.jsonl)
X4_BYTES=$( [ -d "$X4/store/sessions" ] && size_of "$X4"/store/sessions/*.jsonl || echo 0 )
LOG_BYTES=$( [ -f "$LOGS/api.log" ] && size_of "$LOGS/api.log" || echo 0 )
NPROC=$(nproc 2>/dev/null || echo 1)
# a workload with several inputs should use them all, up to MIN_CORES (one core: no such target)
MULTI=$(python3 -c 'import sys; n = int(sys.argv[1]); print(min(float(sys.argv[2]), 0.75 * n) if n > 1 else 0)' "$NPROC" "$MIN_CORES")
cat "$STORE"/sessions/*.jsonl > /dev/null   # the page cache, for every tool alike

# --- helpers ------------------------------------------------------------------------------------
HELP=$("$BIN" --help 2>/dev/null || true)
has_cmd() { printf '%s\n' "$HELP" | sed -n '/^SUBCOMMANDS:/,/^[^ ]/p' | grep -Eq "^  $1( |$)"; }
want() { [ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]]; }
skip() { printf 'skip\t%s\t%s\n' "$1" "$2" >> "$ROWS"; echo "skip $1: $2" >&2; }

# One timed run: "wall user sys maxrss_kib" in FILE (bench/timed.py: the wall clock to the
# microsecond; GNU time rounds to 10 ms, a tenth of the fastest workloads). The output goes to a
# pipe, not to /dev/null: ripgrep stops at its first match when its output is /dev/null.
timed() {  # FILE CMD
    python3 "$ROOT/bench/timed.py" "$1" "$2" || true
}

# timed_best FILE CMD N: N timed runs, after hyperfine's (a warm page cache); keeps the fastest
# run's wall and CPU times (its cores used) and the highest peak RSS of them all.
timed_best() {
    local file=$1 cmd=$2 n=$3 i best="" rss=0
    for i in $(seq "$n"); do
        timed "$file.run" "$cmd"
        read -r e u s m < <(tail -1 "$file.run")
        [ "${m:-0}" -gt "$rss" ] && rss=$m
        if [ -z "$best" ] || awk -v a="$e" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then best="$e $u $s"; fi
    done
    rm -f "$file.run"
    echo "$best $rss" > "$file"
}

# bench NAME BYTES RSS_LIMIT_MIB MIN_CORES CMD  PEER_NAME PEER_CMD TARGET_RATIO  [PEER_NAME PEER_CMD TARGET]...
# Commands print to standard output (hyperfine --output=pipe); pbsift's exit status is ignored
# (-i: findings give 1).
bench() {
    local name=$1 bytes=$2 limit=$3 cores=$4 cmd=$5; shift 5
    local args=(-n "pbsift $name" "$cmd") peers=()
    echo "== $name: $cmd" >&2
    local k=0 peer_cmds=()
    while [ $# -ge 3 ]; do
        echo "   vs $1: $2" >&2
        args+=(-n "$1" "$2")
        peer_cmds+=("$2")
        peers+=("$1" "$3")
        k=$((k + 1)); shift 3
    done
    hyperfine --output=pipe --warmup 1 --runs "$RUNS" -i --style basic --export-json "$OUT/$name.json" "${args[@]}" >&2
    timed_best "$OUT/$name.pbsift.time" "$cmd" "$RUNS"
    for k in "${!peer_cmds[@]}"; do timed "$OUT/$name.peer$k.time" "${peer_cmds[$k]}"; done
    local line
    line=$(printf 'bench\t%s\t%s\t%s\t%s' "$name" "$bytes" "$limit" "$cores")
    for p in "${peers[@]}"; do line+=$(printf '\t%s' "$p"); done
    printf '%s\n' "$line" >> "$ROWS"
}

store_cmd() {  # COMMAND: runnable, or skipped with the reason
    if has_cmd "$1"; then return 0; fi
    skip "$2" "pbsift --help does not list $1"; return 1
}
JQ_STORE="jq -c . $STORE/sessions/*.jsonl"

# --- workloads ----------------------------------------------------------------------------------
if want inspect && store_cmd inspect inspect; then
    bench inspect "$SESSION_BYTES" 256 "$MULTI" "$BIN inspect --format json $STORE" "jq -c ." "$JQ_STORE" 25
fi
if want verify && store_cmd verify verify; then
    bench verify "$SESSION_BYTES" 256 "$MULTI" "$BIN verify --format json $STORE" "jq -c ." "$JQ_STORE" 10
fi
if want waterfall && store_cmd waterfall waterfall; then
    bench waterfall "$SESSION_BYTES" 256 "$MULTI" "$BIN waterfall --format json $STORE" "jq -c ." "$JQ_STORE" 10
fi
if want report && store_cmd report report; then
    bench report "$SESSION_BYTES" 256 "$MULTI" "$BIN report --format json $STORE" "jq -c ." "$JQ_STORE" 6
fi
if want report-x4 && store_cmd report report-x4; then
    if [ "$X4_BYTES" = 0 ]; then skip report-x4 "no large store (X4_MIB=0)"
    else
        bench report-x4 "$X4_BYTES" 256 "$MULTI" "$BIN report --format json $X4/store" \
            "jq -c ." "jq -c . $X4/store/sessions/*.jsonl" 6
    fi
fi
if want correlate && store_cmd correlate correlate; then
    if [ ! -f "$LOGS/api.log" ]; then skip correlate "no logs (LOGS_GIB=0)"
    else
        bench correlate "$LOG_BYTES" 128 0 "$BIN correlate --format json $TARGET --logs $LOGS" \
            "rg -F -f ids.txt" "rg -F -f $IDS $LOGS" 4
    fi
fi
if want correlate-gz && store_cmd correlate correlate-gz; then
    if [ ! -f "$LOGS_GZ" ]; then skip correlate-gz "no gzip logs (LOGS_GIB=0)"
    else
        bench correlate-gz "$LOG_BYTES" 128 0 "$BIN correlate --format json $TARGET --logs $LOGS_GZ" \
            "pigz -dc | rg -F -f ids.txt" "pigz -dc $LOGS_GZ | rg -F -f $IDS" 2 \
            "gzip -dc | rg -F -f ids.txt" "gzip -dc $LOGS_GZ | rg -F -f $IDS" 3
    fi
fi
if want correlate-parts && store_cmd correlate correlate-parts; then
    if ! ls "$PARTS"/*.gz >/dev/null 2>&1; then skip correlate-parts "no rotated logs (LOGS_GIB=0 or LOG_PARTS=0)"
    else
        bench correlate-parts "$LOG_BYTES" 128 "$MULTI" "$BIN correlate --format json $TARGET --logs $PARTS" \
            "pigz -dc | rg -F -f ids.txt" "pigz -dc $PARTS/*.gz | rg -F -f $IDS" 2 \
            "gzip -dc | rg -F -f ids.txt" "gzip -dc $PARTS/*.gz | rg -F -f $IDS" 3
    fi
fi
if want detect-secrets; then
    if ! command -v detect-secrets >/dev/null 2>&1; then
        skip detect-secrets "not installed (pip install detect-secrets)"
    else
        # the same samples, unpacked for detect-secrets (it reads neither zip nor gzip)
        DS=$(mktemp -d)
        python3 -m zipfile -e "$ROOT/samples/export-incident.zip" "$DS/incident"
        cp -r "$ROOT/samples/export-clean" "$DS/clean"
        cp "$ROOT"/samples/ses_*.jsonl "$DS/"
        for g in "$ROOT"/samples/ses_*.jsonl.gz; do gzip -dc "$g" > "$DS/$(basename "$g" .gz)"; done
        SAMPLE_INPUTS="$ROOT/samples/export-incident.zip $ROOT/samples/export-clean $(ls "$ROOT"/samples/ses_*.jsonl "$ROOT"/samples/ses_*.jsonl.gz | tr '\n' ' ')"
        cmds=(-n "detect-secrets" "cd $DS && detect-secrets scan --all-files . > $OUT/detect-secrets.baseline.json")
        if has_cmd verify; then
            cmds+=(-n "pbsift verify" "$BIN verify --format json $SAMPLE_INPUTS > $OUT/pbsift-verify-samples.json")
        fi
        hyperfine --warmup 1 --runs "$RUNS" -i --style basic --export-json "$OUT/detect-secrets.json" "${cmds[@]}" >&2
        (cd "$DS" && detect-secrets scan --all-files . > "$OUT/detect-secrets.baseline.json")
        python3 "$ROOT/bench/leak_recall.py" detect-secrets "$OUT/detect-secrets.baseline.json" > "$OUT/recall-detect-secrets.json"
        if has_cmd verify; then
            "$BIN" verify --format json $SAMPLE_INPUTS > "$OUT/pbsift-verify-samples.json" || true
            python3 "$ROOT/bench/leak_recall.py" pbsift "$OUT/pbsift-verify-samples.json" > "$OUT/recall-pbsift.json"
        fi
        rm -rf "$DS"
    fi
fi

# --- table --------------------------------------------------------------------------------------
echo
echo "pbsift $("$BIN" --version 2>/dev/null | paste -sd ';' | sed 's/; */; /g') | $(uname -m), $NPROC cores, $(date -u +%Y-%m-%d)"
python3 - "$OUT" "$ROWS" "$RUNS" <<'PY'
import json, os, sys
out, rows_path, runs = sys.argv[1], sys.argv[2], sys.argv[3]
MIB = 1024 * 1024

def fastest(doc, name):
    for r in doc["results"]:
        if r["command"] == name:
            return min(r["times"]) if r.get("times") else r["mean"]
    return None

def timed(path):
    """(cores, peak RSS MiB) of one timed run (bench/timed.py), or (None, None)."""
    try:
        wall, user, sys_, rss = open(path).read().split()[-4:]
        wall, cpu = float(wall), float(user) + float(sys_)
        return (cpu / wall if wall > 0 else None), int(rss) / 1024.0
    except (OSError, ValueError):
        return None, None

def num(x, fmt):
    return "-" if x is None else fmt % x

head = ("workload", "input", "pbsift s", "MB/s", "cores", "RSS MiB", "peer", "peer s", "peer MB/s",
        "peer cores", "ratio", "target", "result")
lines, failed = [], False
for raw in open(rows_path):
    f = raw.rstrip("\n").split("\t")
    if f[0] == "skip":
        lines.append((f[1],) + ("-",) * 11 + ("SKIP (" + f[2] + ")",))
        continue
    name, nbytes, limit, min_cores = f[1], int(f[2]), float(f[3]), float(f[4])
    peers = [(f[i], float(f[i + 1])) for i in range(5, len(f) - 1, 2)]
    doc = json.load(open(os.path.join(out, name + ".json")))
    a = fastest(doc, "pbsift " + name)
    cores, rss = timed(os.path.join(out, name + ".pbsift.time"))
    for k, (peer, target) in enumerate(peers):
        b = fastest(doc, peer)
        peer_cores, _ = timed(os.path.join(out, "%s.peer%d.time" % (name, k)))
        ratio = b / a if a and b else None
        why = []
        if ratio is None or ratio < target:
            why.append("ratio")
        if rss is None or rss > limit:
            why.append("RSS")
        if min_cores > 0 and (cores is None or cores < min_cores):
            why.append("cores")
        failed |= bool(why)
        want = ">= %gx, RSS <= %g" % (target, limit) + (", cores >= %g" % min_cores if min_cores > 0 else "")
        lines.append((name, "%.1f MiB" % (nbytes / MIB), num(a, "%.3f"), num(nbytes / a / 1e6 if a else None, "%.0f"),
                      num(cores, "%.2f"), num(rss, "%.1f"), peer, num(b, "%.3f"),
                      num(nbytes / b / 1e6 if b else None, "%.0f"), num(peer_cores, "%.2f"),
                      num(ratio, "%.2fx"), want, "FAIL (" + ", ".join(why) + ")" if why else "PASS"))
widths = [max(len(str(r[i])) for r in [head] + lines) for i in range(len(head))]
for r in [head] + lines:
    print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
print("(times: the fastest of %s runs; MB/s = 10^6 bytes of input per second: session files for the store "
      "workloads, uncompressed log bytes for correlate; ratio = peer time / pbsift time; cores = user + sys "
      "CPU / wall of pbsift's fastest of %s timed runs after hyperfine's, RSS = the highest peak resident set of them; "
      "the peers' from one run)" % (runs, runs))

ds = os.path.join(out, "recall-detect-secrets.json")
if os.path.exists(ds):
    print()
    print("planted leaks in samples/ (EXPECTED-LEAKS.json):")
    times = {}
    try:
        for r in json.load(open(os.path.join(out, "detect-secrets.json")))["results"]:
            times[r["command"]] = r["mean"]
    except (OSError, ValueError, KeyError):
        pass
    for tool, path in (("pbsift verify", os.path.join(out, "recall-pbsift.json")), ("detect-secrets", ds)):
        if not os.path.exists(path):
            print("  %-15s not run" % tool)
            continue
        s = json.load(open(path))
        t = times.get(tool)
        print("  %-15s recall %d/%d (%.0f%%)  false alarms %d  time %s  missed: %s" % (
            tool, s["found"], s["planted"], 100.0 * s["recall"], s["falseAlarms"],
            "%.3fs" % t if t is not None else "-", ", ".join(s["missed"]) or "none"))
sys.exit(1 if failed else 0)
PY
