#!/usr/bin/env bash
# Regenerates the pictures and the report the README's walk-through shows,
# from the sample that ships in the repo.
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/img
mkdir -p "$out"
nd() { go run ./cmd/neardup "$@"; }
sample=testdata/sample/ads.jsonl
nd tune --threshold 0.5 --at 0.2,0.3 --plot "$out/tune.svg" >/dev/null
nd analyze --sample 1500 --ngram 1-5 --char 5 --plot "$out/analyze.svg" "$sample" >/dev/null
nd eval --plot "$out/eval.svg" "$sample" >/dev/null
nd dedup --quiet --report "$out/report.html" "$sample"
echo "wrote $out/tune.svg $out/analyze.svg $out/eval.svg $out/report.html"
