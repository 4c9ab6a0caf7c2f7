#!/usr/bin/env bash
# CPU use of a command over time: runs it and prints, every second, the
# seconds since it started and the CPU it used in that second (user +
# system, in % of one core: 200 is both cores of a 2-core machine), from
# /proc/PID/stat (Linux). Beside dedup --stats (each stage's wall time)
# it shows which stages keep every core busy and which leave one idle.
#
#   bench/cpuuse.sh OUT -- neardup dedup ... corpus.jsonl
#
# The samples go to OUT (lines "second cpu%"), the command's own output
# where it goes; the exit status is the command's.
set -euo pipefail
[ $# -ge 3 ] && [ "$2" = "--" ] || { echo "usage: $0 OUT -- command [args...]" >&2; exit 2; }
out=$1
shift 2
tck=$(getconf CLK_TCK)
"$@" &
pid=$!
: >"$out"
t=0 prev=0
# Bounded: one sample a second for at most a day.
while [ $t -lt 86400 ] && stat=$(cat "/proc/$pid/stat" 2>/dev/null); do
	# Fields 14 and 15 (utime, stime) counted after the command name,
	# which may hold spaces: strip through its closing parenthesis.
	used=$(echo "${stat##*) }" | awk '{print $12 + $13}')
	echo "$t $(( (used - prev) * 100 / tck ))" >>"$out"
	prev=$used t=$((t + 1))
	sleep 1
done
wait "$pid"
