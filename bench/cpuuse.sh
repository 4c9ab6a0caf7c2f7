#!/usr/bin/env bash
# CPU use of a command over time: runs it and prints, every second, the
# seconds since it started and the CPU it used in that second (user +
# system, in % of one core: 200 is both cores of a 2-core machine), from
# /proc/PID/stat (Linux). Beside dedup --stats (each stage's wall time)
# it shows which stages keep every core busy and which leave one idle.
#
#   bench/cpuuse.sh OUT -- neardup dedup ... corpus.jsonl
#
# The samples go to OUT, one line a second: "second cpu% sys% faults
# readMB": the CPU as above, the system part of it, the minor page
# faults (first touches of fresh memory) and the MB read from the disk
# (/proc/PID/io read_bytes: not what the page cache served) in that
# second. The command's own output goes where it goes; the exit status
# is the command's.
set -euo pipefail
[ $# -ge 3 ] && [ "$2" = "--" ] || { echo "usage: $0 OUT -- command [args...]" >&2; exit 2; }
out=$1
shift 2
tck=$(getconf CLK_TCK)
"$@" &
pid=$!
: >"$out"
t=0 prev=0 prevsys=0 prevflt=0 prevrd=0
# Bounded: one sample a second for at most a day.
while [ $t -lt 86400 ] && stat=$(cat "/proc/$pid/stat" 2>/dev/null); do
	# Fields 10, 14 and 15 (minflt, utime, stime) counted after the
	# command name, which may hold spaces: strip through its closing
	# parenthesis.
	read -r flt used sys < <(echo "${stat##*) }" | awk '{print $8, $12 + $13, $13}')
	rd=$(awk '/^read_bytes/ {print $2}' "/proc/$pid/io" 2>/dev/null || echo "$prevrd")
	rd=${rd:-$prevrd}
	echo "$t $(( (used - prev) * 100 / tck )) $(( (sys - prevsys) * 100 / tck )) $((flt - prevflt)) $(( (rd - prevrd) / 1000000 ))" >>"$out"
	prev=$used prevsys=$sys prevflt=$flt prevrd=$rd t=$((t + 1))
	sleep 1
done
wait "$pid"
