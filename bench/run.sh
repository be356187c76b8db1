#!/usr/bin/env bash
# bench/run.sh: release-build pbsift, generate a store near the SDK's 128 MiB budget (and server
# logs), and time each pbsift command against its peer (jq, ripgrep) with hyperfine, in one run.
# Prints MB/s, the ratio to the peer, peak RSS and PASS/FAIL against the issue targets.
#
# Environment:
#   BENCH_DIR    where the store and logs live (default /tmp/pbsift-bench; generated when missing)
#   LOGS_GIB     GiB of server logs to generate (default 1)
#   RUNS         hyperfine runs per command (default 3; one warmup run besides)
#   OUT          where hyperfine's JSON and the table go (default bench/out, git-ignored)
#   SKIP_BUILD=1 use the existing release binary
#   PBSIFT=path  time this binary instead (no build)
#   STORE_MIB    size of the generated store (default 127, just under the 128 MiB budget)
#   ONLY="inspect verify"  run only these benchmarks (inspect verify waterfall correlate correlate-gz
#                report detect-secrets)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH_DIR=${BENCH_DIR:-/tmp/pbsift-bench}
LOGS_GIB=${LOGS_GIB:-1}
RUNS=${RUNS:-3}
OUT=${OUT:-$ROOT/bench/out}
ONLY=${ONLY:-}
mkdir -p "$OUT"
ROWS="$OUT/rows.tsv"
: > "$ROWS"
rm -f "$OUT"/*.json   # results of an earlier run must not leak into this table

# --- tools --------------------------------------------------------------------------------------
missing=()
for t in hyperfine jq rg pigz; do command -v "$t" >/dev/null 2>&1 || missing+=("$t"); done
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing: time hyperfine ripgrep pigz jq" >&2
        apt-get install -y time hyperfine ripgrep pigz jq >&2
    else
        echo "missing: ${missing[*]}. Install them: sudo apt-get install -y time hyperfine ripgrep pigz jq" >&2
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
STORE="$BENCH_DIR/store"
if [ ! -f "$STORE/store.json" ] || [ ! -f "$BENCH_DIR/ids.txt" ]; then
    python3 "$ROOT/bench/gen_store.py" --out "$BENCH_DIR" --store-mib "${STORE_MIB:-127}" --logs-gib "$LOGS_GIB" --gzip-logs >&2
else
    have_gib=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["args"]["logsGib"])' \
        "$BENCH_DIR/manifest.json" 2>/dev/null || echo none)
    if [ "$LOGS_GIB" != 0 ] && { [ ! -f "$BENCH_DIR/logs/api.log" ] || [ ! -f "$BENCH_DIR/logs-gz/api.log.gz" ] \
            || ! python3 -c 'import sys; sys.exit(float(sys.argv[1]) != float(sys.argv[2]))' "$have_gib" "$LOGS_GIB" 2>/dev/null; }; then
        python3 "$ROOT/bench/gen_store.py" --out "$BENCH_DIR" --logs-only --logs-gib "$LOGS_GIB" --gzip-logs >&2
    fi
fi
TARGET=$(cat "$BENCH_DIR/target-session.txt")
IDS="$BENCH_DIR/ids.txt"
LOGS="$BENCH_DIR/logs"
LOGS_GZ="$BENCH_DIR/logs-gz/api.log.gz"
size_of() { du -cb "$@" 2>/dev/null | tail -1 | cut -f1; }
SESSION_BYTES=$(size_of "$STORE"/sessions/*.jsonl)
LOG_BYTES=$( [ -f "$LOGS/api.log" ] && size_of "$LOGS/api.log" || echo 0 )

# --- helpers ------------------------------------------------------------------------------------
HELP=$("$BIN" --help 2>/dev/null || true)
has_cmd() { printf '%s\n' "$HELP" | sed -n '/^SUBCOMMANDS:/,/^[^ ]/p' | grep -Eq "^  $1( |$)"; }
want() { [ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]]; }
skip() { printf 'skip\t%s\t%s\n' "$1" "$2" >> "$ROWS"; echo "skip $1: $2" >&2; }

# peak RSS in KiB of one run; `exec` so the measured process is the command itself, not sh
rss_kib() {
    local f; f=$(mktemp)
    /usr/bin/time -f %M -o "$f" sh -c "exec $1" >/dev/null 2>&1 || true
    tail -1 "$f"; rm -f "$f"
}

# bench NAME BYTES TARGET_RATIO RSS_LIMIT_MIB CMD PEER_NAME PEER_CMD
bench() {
    local name=$1 bytes=$2 target=$3 limit=$4 cmd=$5 peer_name=$6 peer=$7
    echo "== $name: $cmd  vs  $peer" >&2
    hyperfine --warmup 1 --runs "$RUNS" -i --style basic --export-json "$OUT/$name.json" \
        -n "pbsift $name" "$cmd" -n "$peer_name" "$peer" >&2
    local rss peer_rss
    rss=$(rss_kib "$cmd")
    peer_rss=$(rss_kib "$peer")
    printf 'bench\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$bytes" "$target" "$limit" "$rss" "$peer_rss" "$peer_name" >> "$ROWS"
}

# --- benchmarks ---------------------------------------------------------------------------------
if want inspect; then
    if has_cmd inspect; then
        bench inspect "$SESSION_BYTES" 4 256 "$BIN inspect --format json $STORE > /dev/null" \
            "jq -c ." "jq -c . $STORE/sessions/*.jsonl > /dev/null"
    else skip inspect "pbsift --help does not list it"; fi
fi
if want verify; then
    if has_cmd verify; then
        bench verify "$SESSION_BYTES" 3 256 "$BIN verify --format json $STORE > /dev/null" \
            "jq -c ." "jq -c . $STORE/sessions/*.jsonl > /dev/null"
    else skip verify "pbsift --help does not list it"; fi
fi
if want waterfall; then
    if has_cmd waterfall; then
        bench waterfall "$SESSION_BYTES" 3 256 "$BIN waterfall --format json $STORE > /dev/null" \
            "jq -c ." "jq -c . $STORE/sessions/*.jsonl > /dev/null"
    else skip waterfall "pbsift --help does not list it"; fi
fi
if want correlate; then
    if ! has_cmd correlate; then skip correlate "pbsift --help does not list it"
    elif [ ! -f "$LOGS/api.log" ]; then skip correlate "no logs (LOGS_GIB=0)"
    else
        bench correlate "$LOG_BYTES" 1 128 "$BIN correlate --format json $TARGET --logs $LOGS > /dev/null" \
            "rg -F -f ids.txt" "rg -F -f $IDS $LOGS > /dev/null"
    fi
fi
if want correlate-gz; then
    if ! has_cmd correlate; then skip correlate-gz "pbsift --help does not list correlate"
    elif [ ! -f "$LOGS_GZ" ]; then skip correlate-gz "no gzip logs"
    else
        bench correlate-gz "$LOG_BYTES" 1 128 "$BIN correlate --format json $TARGET --logs $LOGS_GZ > /dev/null" \
            "gzip -dc | rg -F -f ids.txt" "gzip -dc $LOGS_GZ | rg -F -f $IDS > /dev/null"
    fi
fi
if want report; then
    if ! { has_cmd report && has_cmd inspect && has_cmd verify && has_cmd correlate; }; then
        skip report "needs report, inspect, verify and correlate in pbsift --help"
    elif [ ! -f "$LOGS/api.log" ]; then skip report "no logs (LOGS_GIB=0)"
    else
        echo "== report vs inspect + verify + correlate" >&2
        hyperfine --warmup 1 --runs "$RUNS" -i --style basic --export-json "$OUT/report.json" \
            -n "pbsift report" "$BIN report --format json $STORE --logs $LOGS > /dev/null" \
            -n "inspect" "$BIN inspect --format json $STORE > /dev/null" \
            -n "verify" "$BIN verify --format json $STORE > /dev/null" \
            -n "correlate" "$BIN correlate --format json $STORE --logs $LOGS > /dev/null" >&2
        rss=$(rss_kib "$BIN report --format json $STORE --logs $LOGS > /dev/null")
        printf 'report\treport\t%s\t1\t256\t%s\t-\tinspect+verify+correlate\n' "$((SESSION_BYTES + LOG_BYTES))" "$rss" >> "$ROWS"
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
python3 - "$OUT" "$ROWS" <<'PY'
import json, os, sys
out, rows_path = sys.argv[1], sys.argv[2]
MIB = 1024 * 1024

def mean(doc, name):
    for r in doc["results"]:
        if r["command"] == name:
            return r["mean"]
    return None

lines = []
head = ("benchmark", "input", "pbsift s", "pbsift MB/s", "peer", "peer s", "peer MB/s", "ratio", "target",
        "RSS MiB", "limit", "result")
failed = False
for raw in open(rows_path):
    f = raw.rstrip("\n").split("\t")
    if f[0] == "skip":
        lines.append((f[1], "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "SKIP (" + f[2] + ")"))
    elif f[0] == "bench":
        name, nbytes, target, limit, rss, peer_rss, peer = f[1], int(f[2]), float(f[3]), int(f[4]), f[5], f[6], f[7]
        doc = json.load(open(os.path.join(out, name + ".json")))
        a, b = mean(doc, "pbsift " + name), mean(doc, peer)
        ratio = b / a
        rss_mib = int(rss) / 1024.0 if rss.strip().isdigit() else float("nan")
        ok = ratio >= target and rss_mib <= limit
        failed |= not ok
        lines.append((name, "%.1f MiB" % (nbytes / MIB), "%.3f" % a, "%.1f" % (nbytes / a / 1e6), peer,
                      "%.3f" % b, "%.1f" % (nbytes / b / 1e6), "%.2fx" % ratio, ">= %gx" % target,
                      "%.1f" % rss_mib, "<= %d" % limit, "PASS" if ok else "FAIL"))
    elif f[0] == "report":
        nbytes, rss = int(f[2]), f[5]
        doc = json.load(open(os.path.join(out, "report.json")))
        a = mean(doc, "pbsift report")
        parts = sum(mean(doc, n) for n in ("inspect", "verify", "correlate"))
        rss_mib = int(rss) / 1024.0 if rss.strip().isdigit() else float("nan")
        ok = a < parts and rss_mib <= 256
        failed |= not ok
        lines.append(("report", "%.1f MiB" % (nbytes / MIB), "%.3f" % a, "%.1f" % (nbytes / a / 1e6),
                      "inspect+verify+correlate", "%.3f" % parts, "-", "%.2fx" % (parts / a), "> 1x",
                      "%.1f" % rss_mib, "<= 256", "PASS" if ok else "FAIL"))
widths = [max(len(str(r[i])) for r in [head] + lines) for i in range(len(head))]
print()
for r in [head] + lines:
    print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
print("(MB/s = 10^6 bytes of input per second: session files for inspect/verify/waterfall, uncompressed "
      "log bytes for correlate; ratio = peer time / pbsift time)")

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
