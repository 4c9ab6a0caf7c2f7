#!/usr/bin/env bash
# Profile-guided optimisation: writes cmd/neardup/neardup.pgo, the CPU
# profile that the benchmark scripts and the README's build command pass
# to `go build -pgo=cmd/neardup/neardup.pgo` (hot calls inlined, hot paths
# laid out first). It is not named default.pgo, which every `go build`,
# `go run` and `go test` of the command would use: the tests of
# ./cmd/neardup then compile the standard library and every dependency a
# second time, with the profile (a cold `go test ./...` took 195 s
# against 83). The profile merges `neardup dedup --cpuprofile` runs, with
# bench/run.sh's flags, on the generated corpora of the given sizes
# (default 100k and 1M), from a binary built without a profile.
#
#   bench/pgo.sh                   # 100k and 1M
#   bench/pgo.sh 1000000 10000000  # other sizes (10M writes 12 GB of pairs)
#
# Rerun it after large changes to the hot paths: a stale profile is never
# wrong (Go matches it to the code by function and line), only less
# useful. Compare builds with and without it (bench/compare.sh, or
# `go build -pgo=off`; bench/HISTORY.md, "2026-11-27, night": 1.4-2.6%
# less CPU at 1M).
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000)
data=bench/data
mkdir -p "$data"
go build -pgo=off -o "$data/neardup-nopgo" ./cmd/neardup
go build -o "$data/gencorpus" ./bench/gencorpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
profs=()
for n in "${sizes[@]}"; do
	corpus="$data/corpus-$n.jsonl"
	[ -s "$corpus" ] || "$data/gencorpus" -n "$n" -seed 1 -o "$corpus" >/dev/null
	cat "$corpus" >/dev/null
	"$data/neardup-nopgo" dedup --quiet --threshold 0.5 --ngram 3 --num-perm 128 --max-bucket 2000 \
		--pairs "$work/pairs.tsv" --clusters "$work/clusters.jsonl" --cpuprofile "$work/$n.prof" "$corpus"
	rm -f "$work/pairs.tsv" "$work/clusters.jsonl"
	profs+=("$work/$n.prof")
done
go tool pprof -proto "${profs[@]}" >"$work/neardup.pgo" 2>/dev/null
mv "$work/neardup.pgo" cmd/neardup/neardup.pgo
echo "wrote cmd/neardup/neardup.pgo ($(stat -c %s cmd/neardup/neardup.pgo) bytes) from ${sizes[*]} documents"
