#!/usr/bin/env bash
# MB/s of the core's base64 codec (bench/b64_bench.c), optionally beside the
# codec of another revision, compiled into the same program:
#
#   bash bench/b64_bench.sh [REV [MEGABYTES [RUNS]]]
#
# REV (e.g. main or a commit) is read with git show; "-" or nothing: this tree
# alone.  Built with cc -O2 (no -march=native: as the Debian packages are).
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:--}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CC=${CC:-cc}
flags=(-O2 -g -std=gnu99 -Isrc/core)
srcs=(bench/b64_bench.c src/core/cf_*.c)
if [[ $rev != - ]]; then
  mkdir -p "$work/before"
  git archive "$rev" src/core | tar -x -C "$work/before" --strip-components=2
  $CC "${flags[@]/-Isrc\/core/-I$work/before}" -Dcf_b64_encode=before_b64_encode \
    -Dcf_b64_decode=before_b64_decode -Dcf_b64_encoded_len=before_b64_encoded_len \
    -Dcf_b64_decoded_len=before_b64_decoded_len -c -o "$work/before.o" "$work/before/cf_base64.c"
  name=$(git rev-parse --short "$rev")
  $CC "${flags[@]}" -DWITH_BEFORE "-DBEFORE_NAME=\"$name\"" -o "$work/b64_bench" "${srcs[@]}" "$work/before.o" -lm
else
  $CC "${flags[@]}" -o "$work/b64_bench" "${srcs[@]}" -lm
fi
"$work/b64_bench" "${2:-64}" "${3:-7}"
