#!/bin/bash
# bench/peak_rss.sh BIN: peak RSS (MiB), wall time and exit status of each command on what
# bench/gen_many.py wrote to $DATA (default /tmp/pbsift-many; INPUTS="sessions blobs", CMDS="inspect report …").
BIN=$1; D=${DATA:-/tmp/pbsift-many}
run() { # name, args...
  local name=$1; shift
  /usr/bin/time -f "%M %e %x" -o /tmp/pbsift-rss-time.$$ "$BIN" "$@" >/dev/null 2>/tmp/pbsift-rss-err.$$
  read kb secs rc < /tmp/pbsift-rss-time.$$ 2>/dev/null
  rc=$(tail -1 /tmp/pbsift-rss-time.$$ | awk '{print $NF}')
  kb=$(tail -1 /tmp/pbsift-rss-time.$$ | awk '{print $1}'); secs=$(tail -1 /tmp/pbsift-rss-time.$$ | awk '{print $2}')
  printf "%-34s %6d MiB %7ss exit %s\n" "$name" $((kb/1024)) "$secs" "$rc"; [ "$rc" != 0 ] && tail -c 300 /tmp/pbsift-rss-err.$$ | sed "s/^/    stderr: /"
}
for input in ${INPUTS:-sessions blobs}; do
  f=$D/$input.zip
  for c in ${CMDS:-inspect verify records har scrub waterfall waterfall-json waterfall-csv waterfall-md waterfall-svg report report-json report-md report-csv report-html correlate show}; do
    case $c in
      inspect) run "$input inspect" inspect $f ;;
      inspect-json) run "$input inspect json" inspect -f json $f ;;
      verify) run "$input verify" verify $f ;;
      records) run "$input records" records $f ;;
      har) run "$input har" har $f ;;
      scrub) run "$input scrub" scrub $f -o /tmp/pbsift-rss-scrub.zip; rm -f /tmp/pbsift-rss-scrub.zip ;;
      waterfall) run "$input waterfall" waterfall $f ;;
      waterfall-json) run "$input waterfall json" waterfall -f json $f ;;
      waterfall-csv) run "$input waterfall csv" waterfall -f csv $f ;;
      waterfall-md) run "$input waterfall markdown" waterfall -f markdown $f ;;
      waterfall-svg) run "$input waterfall svg" waterfall -f svg $f ;;
      report) run "$input report" report $f ;;
      report-json) run "$input report json" report -f json $f ;;
      report-md) run "$input report markdown" report -f markdown $f ;;
      report-csv) run "$input report csv" report -f csv $f ;;
      report-html) run "$input report html" report -f html $f ;;
      correlate) run "$input correlate 5000 logs" correlate $f --logs $D/logs ;;
      report-logs) run "$input report --logs 5000" report $f --logs $D/logs ;;
      show) run "$input show" show $f rec_00000001 ;;
    esac
  done
done
rm -f /tmp/pbsift-rss-time.$$ /tmp/pbsift-rss-err.$$
