#!/usr/bin/env bash
# Chinese and Japanese copies that differ only in line wrapping or in
# full-width Latin letters and digits: how many the default dedup finds,
# with and without --normalize nfkc (bench/cjk). The texts are Debian's
# translated package descriptions, which apt fetches into its lists
# directory (this needs root, or run the apt-get line yourself first).
set -euo pipefail
cd "$(dirname "$0")/.."
lists=/var/lib/apt/lists
if ! ls "$lists"/*Translation-ja.lz4 >/dev/null 2>&1 || ! ls "$lists"/*Translation-zh%5fCN.lz4 >/dev/null 2>&1; then
	apt-get -o Acquire::Languages=ja,zh_CN update >/dev/null
fi
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%d)"
for lang in ja zh_CN; do
	file=$(ls "$lists"/*Translation-"${lang/_/%5f}".lz4 | head -1)
	echo "== $lang: $(basename "$file")"
	go run ./bench/cjk -lang "$lang" "$file"
done
