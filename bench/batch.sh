#!/bin/bash
# bench/batch.sh BIN: a batch of COUNTS exports (copies of samples/export-incident.zip, made here as
# hard links under $DIR) read by each of CMDS; prints wall time, CPU time, peak RSS and exit status of
# each, and the time of each count against the first. Needs GNU /usr/bin/time.
#   COUNTS="4000 20000" (default), CMDS="verify|verify -f jsonl|report -f jsonl" (default, |-separated),
#   DIR=/tmp/pbsift-batch (default). 100000 exports take about 30 MiB of directory entries.
BIN=${1:?usage: bench/batch.sh path/to/pbsift}
DIR=${DIR:-/tmp/pbsift-batch}
COUNTS=${COUNTS:-4000 20000}
CMDS=${CMDS:-verify|verify -f jsonl|report -f jsonl}
SRC=$(cd "$(dirname "$0")/.." && pwd)/samples/export-incident.zip
python3 - "$DIR" "$SRC" $COUNTS <<'PY'
import os, shutil, sys
d, src, counts = sys.argv[1], sys.argv[2], [int(c) for c in sys.argv[3:]]
os.makedirs(f"{d}/src", exist_ok=True)
# A file takes at most 65000 links on ext4: the copies are spread over a few files.
for j in range(16):
    p = f"{d}/src/c{j}.zip"
    if not os.path.exists(p): shutil.copy(src, p)
for n in counts:
    out = f"{d}/n{n}"
    os.makedirs(out, exist_ok=True)
    for i in range(n):
        p = f"{out}/export-{i:06d}.zip"
        if not os.path.exists(p): os.link(f"{d}/src/c{i % 16}.zip", p)
PY
IFS='|' read -ra cmds <<< "$CMDS"
for c in "${cmds[@]}"; do
  first=""
  for n in $COUNTS; do
    # shellcheck disable=SC2086
    /usr/bin/time -f "%e %U %S %M %x" -o /tmp/pbsift-batch-time.$$ "$BIN" $c -q "$DIR/n$n" >/dev/null 2>/dev/null
    read -r secs user sys kb rc < <(tail -1 /tmp/pbsift-batch-time.$$)
    [ -z "$first" ] && { first=$secs; firstn=$n; }
    ratio=$(python3 -c "print(f'{$secs / $first:.2f}')")
    printf "%-18s %7d exports %8ss wall %8ss cpu %5d MiB exit %s   %s× the time of %d\n" \
      "$c" "$n" "$secs" "$(python3 -c "print(f'{$user + $sys:.1f}')")" $((kb / 1024)) "$rc" "$ratio" "$firstn"
  done
done
rm -f /tmp/pbsift-batch-time.$$
