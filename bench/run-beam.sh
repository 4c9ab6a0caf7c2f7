#!/usr/bin/env bash
# neardup-beam on Prism (in this process) against neardup dedup on the same
# generated corpora: wall time, peak RSS, the pipelines' counters (component
# rounds, payload bytes each shuffle moves per document), and a check that
# the pairs and clusters are the same. Then the number of bands against the
# shuffle, and the component rounds on the real corpora in ../shared/data
# when they are there. Prism is Beam's test runner: its times say nothing
# of a cluster's, only the counters carry over.
#
#   bench/run-beam.sh                 # 10k, 20k and 40k documents (Prism keeps every collection in memory: about 2.2 GB per 10k documents here)
#   bench/run-beam.sh 10000           # one size
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 20000 40000)
data=bench/data
mkdir -p "$data"
go build -pgo=cmd/neardup/neardup.pgo -o "$data/neardup" ./cmd/neardup
go build -o "$data/measure" ./bench/measure
go build -o "$data/gencorpus" ./bench/gencorpus
(cd beam && go build -o "../$data/neardup-beam" ./cmd/neardup-beam)

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GB RAM, $(go version | cut -d' ' -f3), Beam Go SDK $(grep 'apache/beam/sdks/v2 ' beam/go.mod | awk '{print $2}'), $(date -u +%Y-%m-%d)"

# run NAME CORPUS ARGS...: dedup and neardup-beam with ARGS on CORPUS; prints
# a line of figures and checks the outputs are the same.
run() {
	local name=$1 corpus=$2
	shift 2
	local out="$data/beam-$name"
	rm -rf "$out"
	mkdir -p "$out/dedup" "$out/beam"
	"$data/measure" -- "$data/neardup" dedup --quiet "$@" --pairs "$out/dedup/pairs.tsv" --clusters "$out/dedup/clusters.jsonl" \
		"$corpus" 2>"$out/dedup.txt"
	"$data/measure" -- "$data/neardup-beam" "$@" --pairs "$out/beam/pairs.tsv" --clusters "$out/beam/clusters.jsonl" \
		"$corpus" 2>"$out/beam.txt"
	for f in pairs.tsv clusters.jsonl; do
		if ! cmp -s <(sort "$out/dedup/$f") <(sort "$out/beam/$f"); then
			echo "$name: $f differs from dedup's" >&2
			exit 1
		fi
	done
	local docs counter
	counter() { awk -v k="$1" '$1 == k {print $2}' "$out/beam.txt"; }
	docs=$(counter documents)
	wall() { grep '^measure:' "$1" | sed 's/.*"wall_seconds":\([0-9.]*\).*/\1/'; }
	rss() { grep '^measure:' "$1" | sed 's/.*"peak_rss_bytes":\([0-9]*\).*/\1/'; }
	per() { awk -v a="$(counter "$1")" -v n="$docs" 'BEGIN{printf "%.0f", a/n}'; }
	printf '%-22s %8s %8.1f %8.1f %7.0f %7.0f %6s %5s %6s %6s %6s %6s %9s %7s\n' "$name" "$docs" \
		"$(wall "$out/dedup.txt")" "$(wall "$out/beam.txt")" \
		"$(awk -v n="$docs" -v w="$(wall "$out/beam.txt")" 'BEGIN{print n/w}')" \
		"$(awk -v r="$(rss "$out/beam.txt")" 'BEGIN{print r/1048576}')" \
		"$(counter component_rounds)" "$(grep -c . "$out/beam/clusters.jsonl" || true)" \
		"$(per shuffle_bytes_sets)" "$(per shuffle_bytes_bands)" "$(per shuffle_bytes_join)" "$(per shuffle_bytes_edges)" \
		"$(counter candidate_pairs)" "same"
}

header() {
	printf '%-22s %8s %8s %8s %7s %7s %6s %5s %6s %6s %6s %6s %9s %7s\n' corpus docs dedup_s beam_s docs/s RSS_MB rounds clust \
		sets_B bands_B join_B edge_B cands outputs
}

echo "== corpus size (word 3-grams, 128 slots, t = 0.5; shuffle columns: payload bytes per document)"
header
for n in "${sizes[@]}"; do
	corpus="$data/corpus-$n.jsonl"
	[ -s "$corpus" ] || "$data/gencorpus" -q -n "$n" -seed 1 -o "$corpus"
	run "gen-$n" "$corpus"
done

echo "== bands (rows 3) on the first size"
header
corpus="$data/corpus-${sizes[0]}.jsonl"
for b in 10 20 40; do
	run "gen-${sizes[0]}-b$b" "$corpus" --bands "$b" --rows 3
done

shared=../shared/data
if [ -d "$shared" ]; then
	echo "== real corpora (component rounds)"
	header
	run kijiji "$shared/kijiji.tsv" --text-field "Title,Short Description"
	run adzuna "$shared/adzuna_first2499.csv" --text-field FullDescription --id-field Id
fi
