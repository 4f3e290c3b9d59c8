#!/usr/bin/env bash
# Installs what cuckoo needs to build (and, with --test, to test) on Debian 12
# (run as root).
# Installs only what is missing, so it is cheap to run again.
set -euo pipefail
. "$(dirname "$0")/../test/lib.sh"   # PG_MAJOR
pkgs=(build-essential "postgresql-$PG_MAJOR" "postgresql-server-dev-$PG_MAJOR" postgresql-common libxxhash-dev)
# the test command also needs clang with libFuzzer, and valgrind for
# test/memcheck/regress_valgrind.sh (test/memcheck/regress_asan.sh uses gcc's libasan, which
# build-essential brings)
if [ "${1:-}" = "--test" ]; then
  pkgs+=(clang libclang-rt-14-dev valgrind)
  # test/cluster/clients.sh: the Python client's suite, and Node for the JavaScript one
  pkgs+=(python3-pytest python3-psycopg python3-xxhash)
  command -v node >/dev/null && command -v npm >/dev/null || pkgs+=(nodejs npm)
  # and Chromium, in which it loads the JavaScript client's ES module (headless)
  pkgs+=(chromium)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
