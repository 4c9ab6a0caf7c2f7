#!/usr/bin/env bash
# Benchmark: neardup dedup end to end on generated corpora of 100k and 1M
# (or 10M) documents (~250 words each), word 3-grams, 128 slots, t = 0.5, exact
# verification. Prints docs/s, MB/s, peak RSS and recall/precision against an
# exact all-pairs join.
#
#   bench/run.sh            # 100k and 1M
#   bench/run.sh 100000     # just one size
#   RECALL=0 bench/run.sh   # skip the exact join (it takes a while on 1M)
#   bench/run.sh 10000000   # 10M, in ten files; recall from a sample (bench/recall -sample)
#   SAMPLE=100 bench/run.sh 1000000   # a sampled check at any size
#   MEMORY_LIMIT=none bench/run.sh 1000000  # dedup --memory-limit none: one pass (the default
#                                           # takes two over these plain files)
#   MAX_BUCKET=5000 bench/run.sh 10000000   # dedup --max-bucket (default 2000; same pairs, other work)
#
# A second table gives each run's stages in seconds, from dedup --stats
# (wall time of each stage; read+shingle overlaps the reading; w_pairs:
# writing the pairs file, from the moment the pairs are final, while the
# clusters are built; w_clusters: the clusters file, beside the pairs).
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000)
data=bench/data
mkdir -p "$data"
go build -pgo=cmd/neardup/neardup.pgo -o "$data/neardup" ./cmd/neardup
go build -o "$data/measure" ./bench/measure
go build -o "$data/recall" ./bench/recall
go build -o "$data/gencorpus" ./bench/gencorpus
go build -o "$data/firsttouch" ./bench/firsttouch

# The host's speed at first touches of memory, which moves every figure
# below on a virtual machine (400 MB written the first time: 0.15 s on
# some days, 1.5 s on others): printed with the machine, so that runs on
# different days can be told apart.
touch=$("$data/firsttouch" | awk '/^pass 1:/{print $6}')
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GB RAM, $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%d), first write of 400 MB $touch"
printf '%-9s %9s %9s %8s %10s %10s %10s %9s %9s\n' docs MB seconds docs/s MB/s peakRSS_MB pairs recall precision
for n in "${sizes[@]}"; do
	corpus="$data/corpus-$n.jsonl"
	[ -s "$corpus" ] || "$data/gencorpus" -n "$n" -seed 1 -o "$corpus" >/dev/null
	out="$data/out-$n"
	mkdir -p "$out"
	# From 10M documents on, the corpus is ten files (one corpus to dedup),
	# cut at line ends, named 0.jsonl ... 9.jsonl in their own directory and
	# read from there: with several inputs every id is prefixed with its
	# file's name as given, and short names keep the pairs file small.
	dir=$data
	inputs=("corpus-$n.jsonl")
	if [ "$n" -ge 10000000 ]; then
		dir=$data/parts-$n
		mkdir -p "$dir"
		[ -s "$dir/9.jsonl" ] || split -d -a 1 -n l/10 --additional-suffix=.jsonl "$corpus" "$dir/"
		inputs=(0.jsonl 1.jsonl 2.jsonl 3.jsonl 4.jsonl 5.jsonl 6.jsonl 7.jsonl 8.jsonl 9.jsonl)
	fi
	abs=$(pwd)
	# Drop the page cache effect of generation: read the file once first.
	(cd "$dir" && cat "${inputs[@]}" >/dev/null)
	(cd "$dir" && "$abs/$data/measure" -- "$abs/$data/neardup" dedup --quiet --threshold 0.5 --ngram 3 --num-perm 128 \
		--memory-limit "${MEMORY_LIMIT:-auto}" --max-bucket "${MAX_BUCKET:-2000}" --pairs "$abs/$out/pairs.tsv" --clusters "$abs/$out/clusters.jsonl" --stats "$abs/$out/stats.json" "${inputs[@]}") 2>"$out/measure.txt"
	m=$(grep '^measure:' "$out/measure.txt" | sed 's/^measure: //')
	wall=$(echo "$m" | sed 's/.*"wall_seconds":\([0-9.]*\).*/\1/')
	rss=$(echo "$m" | sed 's/.*"peak_rss_bytes":\([0-9]*\).*/\1/')
	bytes=$(stat -c %s "$corpus")
	pairs=$(wc -l <"$out/pairs.tsv")
	recall=- precision=-
	if [ "${RECALL:-1}" != 0 ]; then
		# The exact join holds every set: over 5M documents, check a sample
		# of one document in SAMPLE (default 1000) against the whole corpus.
		sample=()
		if [ -n "${SAMPLE:-}" ] || [ "$n" -gt 5000000 ]; then
			sample=(-sample "${SAMPLE:-1000}" -clusters "$abs/$out/clusters.jsonl")
		fi
		(cd "$dir" && "$abs/$data/recall" -json "${sample[@]}" -corpus "$(IFS=,; echo "${inputs[*]}")" -pairs "$abs/$out/pairs.tsv" -threshold 0.5) >"$out/recall.json"
		recall=$(sed 's/.*"recall":\([0-9.e-]*\).*/\1/' "$out/recall.json")
		precision=$(sed 's/.*"precision":\([0-9.e-]*\).*/\1/' "$out/recall.json")
	fi
	awk -v n="$n" -v b="$bytes" -v w="$wall" -v r="$rss" -v p="$pairs" -v rc="$recall" -v pr="$precision" 'BEGIN {
		printf "%-9d %9.1f %9.2f %8.0f %10.1f %10.0f %10d %9s %9s\n", n, b/1e6, w, n/w, b/1e6/w, r/1048576, p, rc, pr }'
done

echo
printf '%-9s %7s %13s %9s %8s %8s %12s %8s %8s %8s %8s\n' docs passes read+shingle identical sign lsh+ver second_pass '(verify)' cluster w_pairs w_clust
for n in "${sizes[@]}"; do
	st="$data/out-$n/stats.json"
	[ -s "$st" ] || continue
	sec() { sed -n "s/.*\"$1\": \([0-9][0-9.e-]*\).*/\1/p" "$st" | head -n 1; }
	passes=$(sed -n 's/.*"passes": \([0-9]*\).*/\1/p' "$st")
	awk -v n="$n" -v p="$passes" -v a="$(sec read_shingle)" -v b="$(sec collapse)" -v c="$(sec sign)" -v d="$(sec lsh_verify)" \
		-v e="$(sec second_pass)" -v v="$(sec second_pass_verify)" -v f="$(sec cluster)" \
		-v g="$(sec write_pairs)" -v h="$(sec write_clusters)" 'BEGIN {
		printf "%-9d %7s %13.2f %9.2f %8.2f %8.2f %12.2f %8.2f %8.2f %8.2f %8.2f\n", n, p, a, b, c, d, e, v, f, g, h }'
done
