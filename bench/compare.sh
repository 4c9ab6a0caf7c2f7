#!/usr/bin/env bash
# Compare this checkout's `neardup dedup` with another revision's on the same
# generated corpus: the two run in turn (A B A B ...), so that drift of a
# shared machine hits both alike, and the medians of wall time, CPU time and
# peak RSS are printed with their ratio.
#
#   bench/compare.sh REV [DOCS] [RUNS] [-- extra dedup flags for this checkout]
#   bench/compare.sh c4f0043 100000 9 -- --pairs-compact
#
# REV is built in a temporary git worktree. Each run writes --pairs and
# --clusters, then the two builds' outputs are compared (cmp), so a speed
# figure never hides a change of results. The extra flags go to this
# checkout's build only: for instance --pairs-compact, for the pairs listing
# of builds before c4f0043's successor.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: bench/compare.sh REV [DOCS] [RUNS] [-- flags]}
n=${2:-100000}
runs=${3:-5}
shift $(($# < 3 ? $# : 3))
[ "${1:-}" = "--" ] && shift
extra=("$@")
data=bench/data
mkdir -p "$data"
# Each build with its tree's profile for profile-guided optimisation, if
# it has one (bench/pgo.sh), as bench/run.sh builds.
pgo() { if [ -f "$1/cmd/neardup/neardup.pgo" ]; then echo "-pgo=$1/cmd/neardup/neardup.pgo"; else echo -pgo=off; fi; }
go build "$(pgo .)" -o "$data/neardup" ./cmd/neardup
go build -o "$data/measure" ./bench/measure
go build -o "$data/gencorpus" ./bench/gencorpus
wt=$(mktemp -d)
trap 'git worktree remove --force "$wt/tree" >/dev/null 2>&1 || true; rm -rf "$wt"' EXIT
git worktree add --quiet --detach "$wt/tree" "$rev"
(cd "$wt/tree" && go build "$(pgo .)" -o "$wt/neardup-base" ./cmd/neardup)
corpus="$data/corpus-$n.jsonl"
[ -s "$corpus" ] || "$data/gencorpus" -n "$n" -seed 1 -o "$corpus" >/dev/null
cat "$corpus" >/dev/null

one() { # one BIN TAG [FLAGS]: a run, its measure line appended to $wt/TAG
	local bin=$1 tag=$2
	shift 2
	"$data/measure" -- "$bin" dedup --quiet "$@" --pairs "$wt/$tag.pairs" --clusters "$wt/$tag.clusters" "$corpus" \
		2>&1 >/dev/null | sed -n 's/^measure: //p' >>"$wt/$tag"
	grep -q '"exit":0' <(tail -n 1 "$wt/$tag") || { echo "$bin failed" >&2; exit 1; }
}
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%d)"
echo "A = this checkout ($(git rev-parse --short HEAD)) ${extra[*]}, B = $rev; $n documents, $runs runs each"
one "$data/neardup" warm "${extra[@]}"
one "$wt/neardup-base" warm
for _ in $(seq "$runs"); do
	one "$data/neardup" A "${extra[@]}"
	one "$wt/neardup-base" B
done
median() { # median FIELD FILE
	sed "s/.*\"$1\":\([0-9.e+-]*\).*/\1/" "$2" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'
}
cpu() { sed 's/.*"sys_seconds":\([0-9.e+-]*\).*"user_seconds":\([0-9.e+-]*\).*/\1 \2/' "$1" | awk '{print $1+$2}' | sort -g |
	awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
wa=$(median wall_seconds "$wt/A") wb=$(median wall_seconds "$wt/B")
ca=$(cpu "$wt/A") cb=$(cpu "$wt/B")
ra=$(median peak_rss_bytes "$wt/A") rb=$(median peak_rss_bytes "$wt/B")
printf '%-8s %10s %10s %12s\n' "" "wall s" "cpu s" "peak RSS MB"
printf '%-8s %10.3f %10.3f %12.0f\n' A "$wa" "$ca" "$(echo "$ra" | awk '{print $1/1048576}')"
printf '%-8s %10.3f %10.3f %12.0f\n' B "$wb" "$cb" "$(echo "$rb" | awk '{print $1/1048576}')"
awk -v a="$wa" -v b="$wb" -v c="$ca" -v d="$cb" -v e="$ra" -v f="$rb" 'BEGIN {printf "%-8s %10.3f %10.3f %12.3f\n", "A/B", a/b, c/d, e/f}'
for out in pairs clusters; do
	if cmp -s "$wt/A.$out" "$wt/B.$out"; then echo "--$out: identical"; else echo "--$out: DIFFERENT"; fi
done
