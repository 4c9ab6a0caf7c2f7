#!/usr/bin/env bash
# Benchmark: the persistent index and the service on generated documents
# (~250 words each; word 3-grams, 128 slots, t = 0.5).
#
#   bench/run-service.sh            # 1M documents indexed
#   bench/run-service.sh 100000     # another size
#   SECONDS_PER_RUN=5 bench/run-service.sh 100000
#
# Prints: `index build` wall time and peak RSS; opening time and resident
# memory per document; then, with bench/loadgen (a closed loop: each
# connection sends its next request when the answer arrives), throughput
# and p50/p99/p999 latency of
#   - queries of new documents in process (the index package called
#     directly) and over HTTP (neardup serve on loopback), at 1 and 32
#     connections, beside a bare net/http handler that reads the body and
#     answers {} loaded by the same generator in the same run (the ceiling
#     HTTP and JSON put on this machine with the client on it too);
#   - durable inserts (check and insert, a 2xx only after the write-ahead
#     log is synced) in process at 16 and 64 connections and over HTTP at 64
#     (group commit: concurrent inserts share a sync, so throughput grows
#     with the number of writers).
# Client and server share the machine. Everything listens on 127.0.0.1
# and every run is bounded in time and requests.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
secs=${SECONDS_PER_RUN:-10}
data=bench/data
mkdir -p "$data"
go build -pgo=cmd/neardup/neardup.pgo -o "$data/neardup" ./cmd/neardup
go build -o "$data/measure" ./bench/measure
go build -o "$data/gencorpus" ./bench/gencorpus
go build -o "$data/loadgen" ./bench/loadgen

corpus="$data/corpus-$n.jsonl"
queries="$data/queries-20000-seed7.jsonl" # new documents: other seeds, other texts
# new documents to insert, a file per run so that no run inserts copies of
# another's
ins=()
for seed in 9 10 11; do
	ins+=("$data/inserts-200000-seed$seed.jsonl")
	[ -s "${ins[-1]}" ] || "$data/gencorpus" -q -n 200000 -seed "$seed" -o "${ins[-1]}"
done
[ -s "$corpus" ] || "$data/gencorpus" -q -n "$n" -seed 1 -o "$corpus"
[ -s "$queries" ] || "$data/gencorpus" -q -n 20000 -seed 7 -o "$queries"
cat "$corpus" >/dev/null

work=$(mktemp -d "$data/service.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GB RAM, $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%d)"
ix="$work/index"
"$data/measure" -- "$data/neardup" index build --quiet --index "$ix" "$corpus" 2>"$work/build.txt" >/dev/null
m=$(grep '^measure:' "$work/build.txt" | sed 's/^measure: //')
wall=$(echo "$m" | sed 's/.*"wall_seconds":\([0-9.]*\).*/\1/')
rss=$(echo "$m" | sed 's/.*"peak_rss_bytes":\([0-9]*\).*/\1/')
awk -v n="$n" -v w="$wall" -v r="$rss" 'BEGIN { printf "index build: %d documents in %.1f s (%.0f docs/s), peak RSS %.0f MB\n", n, w, n/w, r/1048576 }'
echo "on disk: $(du -sh "$ix" | cut -f1)"
"$data/neardup" index stats --index "$ix" | sed -n 2p
"$data/neardup" index stats --index "$ix" | sed -n 2p # the second opening: the files in the page cache

# A copy for the inserts, so that the query runs see the corpus alone.
cp -r "$ix" "$work/index-ins"

run() { "$data/loadgen" -duration "${secs}s" -requests 1000000 "$@"; }

echo "== in process"
run -index "$ix" -op query -docs "$queries" -conns 1
run -index "$ix" -op query -docs "$queries" -conns 32
run -index "$work/index-ins" -op insert -docs "${ins[0]}" -conns 16 -id-prefix in16-
run -index "$work/index-ins" -op insert -docs "${ins[1]}" -conns 64 -id-prefix in64-

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo $((20000 + RANDOM % 20000)); }
ready() {
	for _ in $(seq 1 600); do
		curl -fsS "http://$1/readyz" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "server at $1 not ready" >&2
	return 1
}

echo "== over HTTP (neardup serve), beside a bare handler"
bare="127.0.0.1:$(port)"
"$data/loadgen" -bare "$bare" &
pids+=($!)
addr="127.0.0.1:$(port)"
"$data/neardup" serve --index "$ix" --addr "$addr" 2>"$work/serve.txt" &
spid=$!
pids+=($spid)
ready "$addr"
until curl -fsS -o /dev/null -X POST -d '{}' "http://$bare/" 2>/dev/null; do sleep 0.1; done
for c in 1 32; do
	run -url "http://$bare" -op query -docs "$queries" -conns "$c" | sed 's/^http /bare /'
	run -url "http://$addr" -op query -docs "$queries" -conns "$c"
done
kill -TERM "$spid"
wait "$spid" 2>/dev/null || true
"$data/neardup" serve --index "$work/index-ins" --addr "$addr" 2>>"$work/serve.txt" &
spid=$!
pids+=($spid)
ready "$addr"
run -url "http://$bare" -op insert -docs "${ins[2]}" -conns 64 | sed 's/^http /bare /'
run -url "http://$addr" -op insert -docs "${ins[2]}" -conns 64 -id-prefix http64-
kill -TERM "$spid"
wait "$spid" 2>/dev/null || true
