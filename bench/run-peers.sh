#!/usr/bin/env bash
# Peers on the same corpus and machine: the pipeline a Go user builds with
# github.com/ekzhu/minhash-lsh (bench/peers, its own module), next to neardup.
#
#   bench/run-peers.sh [DOCS]      # default 100000
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}
data=bench/data
mkdir -p "$data"
go build -pgo=cmd/neardup/neardup.pgo -o "$data/neardup" ./cmd/neardup
go build -o "$data/measure" ./bench/measure
go build -o "$data/gencorpus" ./bench/gencorpus
(cd bench/peers && go build -o "../data/ekzhu" ./ekzhu)
corpus="$data/corpus-$n.jsonl"
[ -s "$corpus" ] || "$data/gencorpus" -n "$n" -seed 1 -o "$corpus" >/dev/null
cat "$corpus" >/dev/null
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(date -u +%Y-%m-%d), $n documents"
echo "== neardup"
"$data/measure" -- "$data/neardup" dedup --threshold 0.5 --pairs "$data/peer-neardup-pairs.tsv" "$corpus" 2>&1 | grep -E 'verified|measure'
echo "== ekzhu/minhash-lsh (128 hashes, t = 0.5, exact verification)"
"$data/measure" -- "$data/ekzhu" -corpus "$corpus" -threshold 0.5 2>&1 | tail -2
