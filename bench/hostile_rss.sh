#!/bin/bash
# bench/hostile_rss.sh BIN DIR: peak RSS (MiB), wall time and exit status of every command on each
# input bench/gen_hostile.py wrote to DIR. INPUTS="file …" picks inputs (names in DIR), CMDS="inspect
# report …" picks commands, LIMIT=seconds bounds each run (default 600; "timeout" is printed past it).
BIN=$1; D=$2
LIMIT=${LIMIT:-600}
T=/tmp/pbsift-hostile-rss.$$
run() { # input, command name, args...
  local input=$1 name=$2; shift 2
  timeout "$LIMIT" /usr/bin/time -f "%M %e %x" -o $T.time "$BIN" "$@" >/dev/null 2>$T.err
  local rc=$?
  local kb secs x
  read kb secs x < <(tail -1 $T.time 2>/dev/null)
  [ "$rc" = 124 ] && x=timeout
  printf "%-24s %-14s %6d MiB %8ss exit %s\n" "$input" "$name" $(( ${kb:-0} / 1024 )) "${secs:-?}" "${x:-$rc}"
  case "$x" in 0|1|2) ;; *) tail -c 300 $T.err | sed "s/^/    stderr: /" ;; esac
}
for input in ${INPUTS:-lines16m.jsonl.gz values1m.jsonl strings1m.jsonl dupkeys.jsonl deep.jsonl empties.jsonl \
    bomb-newlines.jsonl.gz bomb-aaa.jsonl.gz gzgz.tar.gz gzgz.jsonl.gz big.har zip100k.zip zip199k-empty.zip \
    longnames.tar longids.tar tiny1m.tar.gz small.jsonl blobbomb.zip}; do
  f=$D/$input
  [ -e "$f" ] || continue
  ext=${input#*.}
  for c in ${CMDS:-inspect verify records har scrub waterfall report report-json correlate show}; do
    case $c in
      inspect) run $input inspect inspect "$f" ;;
      verify) run $input verify verify "$f" ;;
      records) run $input records records "$f" ;;
      har) run $input har har "$f" ;;
      scrub) rm -rf $T.out.$ext; run $input scrub scrub "$f" -o $T.out.$ext; rm -rf $T.out.$ext ;;
      waterfall) run $input waterfall waterfall "$f" ;;
      report) run $input report report "$f" ;;
      report-json) run $input "report -f json" report -f json "$f" ;;
      correlate) run $input "correlate" correlate "$f" --logs "$D/logs1m" ;;
      show) run $input show show "$f" rec_00000001 ;;
    esac
  done
done
rm -f $T.time $T.err
