#!/usr/bin/env bash
# Checks that a checkout's `neardup dedup` gives the same results as another
# revision's, byte for byte, in every mode, on every corpus at hand: the
# shipped sample; Kijiji and Adzuna when ../shared/data is beside the
# checkout; Debian's package descriptions (English, from apt-cache
# dumpavail, and Japanese and Chinese, from apt's translation indexes) when
# apt is there. A refactoring that claims to change nothing runs it.
#
#   bench/identical.sh REV [DIR]     # REV: a commit; DIR: the checkout (default .)
#   bench/identical.sh a652d03
#
# Each (corpus, mode) writes --pairs, --clusters and --output with both
# builds; any difference is printed and the exit status is 1. bench/cjk (the
# CJK copies of the Debian translations through the library) is compared
# too. Needs only Go and git; apt's lists are fetched (as root) when the
# translations are missing.
set -euo pipefail
rev=${1:?usage: bench/identical.sh REV [DIR]}
dir=$(cd "${2:-$(dirname "$0")/..}" && pwd)
work=$(mktemp -d)
trap 'git -C "$dir" worktree remove --force "$work/old" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$dir" worktree add --quiet --detach "$work/old" "$rev"
(cd "$work/old" && go build -pgo=off -o "$work/neardup-old" ./cmd/neardup)
(cd "$dir" && go build -pgo=off -o "$work/neardup-new" ./cmd/neardup)

# The corpora: name|file|the flags that read it, separated by ";".
corpora=()
corpora+=("sample|$dir/testdata/sample/ads.jsonl|")
shared=$dir/../shared/data
[ -f "$shared/kijiji.tsv" ] && corpora+=("kijiji|$shared/kijiji.tsv|--text-field=Title,Short Description")
[ -f "$shared/adzuna_first2499.csv" ] && corpora+=("adzuna|$shared/adzuna_first2499.csv|--text-field=Title,FullDescription;--id-field=Id")
# A description per line: the field's first line and its continuation lines
# (those starting with a space; " ." is an empty line) joined by spaces.
describe() { # FIELD: stanzas on stdin, one description per line out
	awk -v f="$1" '
		/^[^ ]/ { if (d != "") print d; d = ""; on = index($0, f ": ") == 1; if (on) d = substr($0, length(f) + 3); next }
		on && /^ / { line = substr($0, 2); if (line != ".") d = d " " line }
		END { if (d != "") print d }'
}
if command -v apt-cache >/dev/null; then
	apt-cache dumpavail | describe Description >"$work/debian.txt"
	[ -s "$work/debian.txt" ] && corpora+=("debian|$work/debian.txt|")
fi
lists=/var/lib/apt/lists
if command -v lz4cat >/dev/null && [ -d "$lists" ]; then
	if ! ls "$lists"/*Translation-ja.lz4 >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
		apt-get -o Acquire::Languages=ja,zh_CN update >/dev/null 2>&1 || true
	fi
	for lang in ja zh_CN; do
		f=$(ls "$lists"/*Translation-"${lang/_/%5f}".lz4 2>/dev/null | head -1) || true
		[ -n "$f" ] || continue
		lz4cat "$f" | describe "Description-$lang" >"$work/$lang.txt"
		corpora+=("debian-$lang|$work/$lang.txt|")
	done
fi

modes=(
	""
	"--cluster=components"
	"--keep=longest"
	"--keep=shortest"
	"--weight=idf"
	"--verify=estimate"
	"--refine=edit"
	"--shingle=char"
	"--bag"
	"--pairs-compact"
	"--normalize=nfkc"
	"--threshold=0.8 --cluster=components"
	"--memory-limit=1MiB"
	"--max-bucket=8"
)

fail=0
runs=0
for c in "${corpora[@]}"; do
	IFS='|' read -r name file readflags <<<"$c"
	IFS=';' read -r -a read_args <<<"$readflags"
	ext=${file##*.}
	for m in "${modes[@]}"; do
		read -r -a mode_args <<<"$m"
		for b in old new; do
			out=$work/out-$b
			rm -rf "$out" && mkdir -p "$out"
			if ! "$work/neardup-$b" dedup --quiet --no-progress "${read_args[@]}" "${mode_args[@]}" \
				--pairs "$out/pairs.tsv" --clusters "$out/clusters.jsonl" --output "$out/output.$ext" "$file" 2>"$out/stderr"; then
				echo "$name [$m]: the $b build failed: $(head -3 "$out/stderr")"
			fi
		done
		runs=$((runs + 1))
		for f in pairs.tsv clusters.jsonl "output.$ext" stderr; do
			if ! cmp -s "$work/out-old/$f" "$work/out-new/$f"; then
				echo "DIFFERENT: $name [$m] $f"
				diff <(head -c 100000 "$work/out-old/$f") <(head -c 100000 "$work/out-new/$f") | head -5 || true
				fail=1
			fi
		done
	done
	echo "$name: $(wc -l <"$file") documents, ${#modes[@]} modes compared ($(wc -l <"$work/out-new/pairs.tsv") pairs in the last)"
done

# bench/cjk: the library on the CJK copies (as bench/run-cjk.sh runs it).
cjk() { # TREE LANG FILE
	if [ -f "$1/bench/go.mod" ]; then (cd "$1/bench" && go run ./cjk -lang "$2" "$3"); else (cd "$1" && go run ./bench/cjk -lang "$2" "$3"); fi
}
for lang in ja zh_CN; do
	f=$(ls "$lists"/*Translation-"${lang/_/%5f}".lz4 2>/dev/null | head -1) || true
	[ -n "$f" ] || continue
	if ! cmp -s <(cjk "$work/old" "$lang" "$f") <(cjk "$dir" "$lang" "$f"); then
		echo "DIFFERENT: bench/cjk -lang $lang"
		fail=1
	else
		echo "bench/cjk -lang $lang: the same"
	fi
done
if [ "$fail" = 0 ]; then
	echo "identical: $runs runs of each build, pairs, clusters, output and messages byte for byte"
fi
exit "$fail"
