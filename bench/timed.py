#!/usr/bin/env python3
"""One timed run for bench/run.sh: bench/timed.py FILE CMD runs `sh -c CMD` with its standard
output drained from a pipe (never /dev/null: ripgrep stops at its first match when its output is
/dev/null) and its standard error dropped, and writes "wall user sys maxrss_kib" to FILE: the wall
clock to the microsecond, the user and system CPU of the command and every process it waited for,
and the largest peak resident set among them (wait4's resource usage, as GNU time reads it, whose
own output is rounded to 10 ms: a tenth of a 0.1 s run). Stdlib only."""
import os, subprocess, sys, time

def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    out, cmd = argv[1], argv[2]
    start = time.perf_counter()
    p = subprocess.Popen(["sh", "-c", cmd], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    while p.stdout.read(1 << 16):
        pass
    _, _, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    p.returncode = 0  # reaped above
    with open(out, "w") as f:
        f.write("%.6f %.6f %.6f %d\n" % (wall, usage.ru_utime, usage.ru_stime, usage.ru_maxrss))

if __name__ == "__main__":
    main(sys.argv)
