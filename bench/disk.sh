#!/usr/bin/env bash
# The disk's sequential write speed, beside the 10M run's writing of its
# pairs file (about 12 GB, fsync'ed before the run ends): dd writes MB
# megabytes of zeros to a file in DIR and waits for them to reach the disk
# (conv=fdatasync), then removes the file.
#
#   bench/disk.sh [DIR] [MB]     # defaults: bench/data, 4096
set -euo pipefail
dir=${1:-"$(dirname "$0")/data"}
mb=${2:-4096}
mkdir -p "$dir"
f=$(mktemp "$dir/disk.XXXXXX")
trap 'rm -f "$f"' EXIT
sync
dd if=/dev/zero of="$f" bs=1M count="$mb" conv=fdatasync 2>&1 | tail -n 1
