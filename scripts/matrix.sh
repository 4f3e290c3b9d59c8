#!/usr/bin/env bash
# The PostgreSQL version matrix beyond the host's 15: each major in a Debian
# tree of its own (scripts/chroot.sh) where cuckoo is built with warnings as
# errors and the pg_regress suite, the dump/restore test, the update-chain
# test, the stored-filter test (test/cluster/store.sh), the living-filter
# test (test/cluster/track.sh) and the README's sql
# examples (test/readme.sh) run against a throwaway cluster, and the Citus emulation (test/cluster/citus_emulation.sh)
# in a private tree; in the 17 tree the Debian package is built, installed
# and tested too (test/package.sh).  Run as root.
#
#   scripts/matrix.sh prepare [MAJOR...]  builds (or reuses) the trees, in parallel
#   scripts/matrix.sh test [MAJOR...]     tests each; a line per version
#                                         "# PostgreSQL N (...): N passed, N failed",
#                                         then the total "N passed, N failed"
#   scripts/matrix.sh inside MAJOR PORT   (what "test" runs inside a tree)
#
# MAJORs default to $PG_MATRIX, else "13 17 18 19".  With CI=true, "prepare"
# first empties the tree directory, so CI tests fresh trees; locally a
# ready tree is reused (CUCKOO_CHROOTS, default /var/cache/cuckoo-chroots).
# Ports: 25000 + MAJOR (override with MATRIX_PORT_BASE).  The load tests'
# phases take MATRIX_LOAD_SECONDS (8), the living-filter test's mixed
# writes under READ COMMITTED and REPEATABLE READ MATRIX_CLIENT_SECONDS (60).
# MATRIX_JOBS=N tests N trees at once (default 1).
set -uo pipefail
cd "$(dirname "$0")/.."
cmd=${1:-}; shift || true
majors=("$@")
[ ${#majors[@]} -gt 0 ] || read -r -a majors <<<"${PG_MATRIX-13 17 18 19}"
ROOT="${CUCKOO_CHROOTS:-/var/cache/cuckoo-chroots}"
PORT_BASE="${MATRIX_PORT_BASE:-25000}"

describe() {
  case $1 in
    13) echo "Debian 11 bullseye tree" ;;
    17) echo "Debian 13 trixie tree" ;;
    18) echo "Debian unstable tree" ;;
    19) echo "Debian unstable tree + experimental" ;;
  esac
}

# secs: seconds since the script's start, for the timing lines
t0=$(date +%s)
secs() { echo $(($(date +%s) - t0)); }

prepare() {
  local m pids=() names=() rc=0 i
  # PG_MATRIX="": nothing to build, nothing to install or download
  [ ${#majors[@]} -gt 0 ] || return 0
  command -v debootstrap >/dev/null || {
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends debootstrap >/dev/null \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends debootstrap >/dev/null; }
  }
  if [ "${CI:-}" = true ]; then
    # nothing may still be mounted in a tree that is about to go
    # (a here-string, not a pipe: under pipefail grep -q leaving early can
    # kill findmnt with SIGPIPE and make the test false)
    if grep -q "^$ROOT/" <<<"$(findmnt -rn -o TARGET)"; then
      echo "matrix: something is mounted under $ROOT; not removing it" >&2; return 1
    fi
    rm -rf "$ROOT"
  fi
  mkdir -p "$ROOT"
  for m in "${majors[@]}"; do
    ( s=$(date +%s)
      if bash scripts/chroot.sh tree "$m" >"$ROOT/pg$m.tree.log" 2>&1; then
        echo "# tree $m: $(tail -n 1 "$ROOT/pg$m.tree.log") in $(($(date +%s) - s)) s"
      else
        echo "# tree $m: FAILED after $(($(date +%s) - s)) s"; sed 's/^/    /' "$ROOT/pg$m.tree.log"; exit 1
      fi ) &
    pids+=($!); names+=("$m")
  done
  for i in "${!pids[@]}"; do wait "${pids[i]}" || rc=1; done
  return $rc
}

# test_major MAJOR: copies the work tree into the Debian tree and runs
# "inside" there; prints the version's line
test_major() {
  local m=$1 tree="$ROOT/pg$1" s line
  s=$(date +%s)
  if [ ! -f "$tree/.cuckoo-ready" ]; then
    echo "not ok - PostgreSQL $m: no tree (scripts/matrix.sh prepare $m)"
    echo "# PostgreSQL $m ($(describe "$m")): 0 passed, 1 failed"
    return
  fi
  rm -rf "$tree/build"
  mkdir -p "$tree/build/cuckoo"
  # the work tree as it is (tracked and new files, not ignored ones)
  git ls-files -z --cached --others --exclude-standard \
    | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$tree/build/cuckoo"
  bash scripts/chroot.sh run "$m" \
    "cd /build/cuckoo && MATRIX_PACKAGE='${MATRIX_PACKAGE:-}' bash scripts/matrix.sh inside $m $((PORT_BASE + m))" >"$ROOT/pg$m.test.log" 2>&1
  grep -E '^(not ok|    |# |ok - pg_get)' "$ROOT/pg$m.test.log"
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$ROOT/pg$m.test.log" | tail -n 1)
  [ -n "$line" ] || { tail -n 20 "$ROOT/pg$m.test.log" | sed 's/^/    /'; line="0 passed, 1 failed"; }
  echo "# PostgreSQL $m ($(describe "$m")): $line ($(($(date +%s) - s)) s)"
}

# inside MAJOR PORT: runs in the tree, as root, in a copy of the source
inside() {
  local m=$1 port=$2 passed=0 failed=0 log rp rf line dr t0
  export PG_CONFIG="/usr/lib/postgresql/$m/bin/pg_config"
  log=$(mktemp -d)
  step() {
    local name=$1; shift
    if "$@" >"$log/$name.log" 2>&1; then echo "ok - $name"; passed=$((passed + 1))
    else echo "not ok - $name"; failed=$((failed + 1)); tail -n 40 "$log/$name.log" | sed 's/^/    /'; fi
  }
  # tally [-s ERE] [-n MOST] [-p PREFIX] [-t TAIL] NAME CMD...: runs CMD, a
  # test that ends with "N passed, N failed", into $log/NAME.log; prints the
  # lines of that log that match ERE (default "^not ok"; the first MOST of
  # them, default all), each after PREFIX (default "    NAME: "), then
  # "# NAME: N passed, N failed" (0 passed, 1 failed, and the log's last TAIL
  # lines, default 20, when it printed no count); adds the counts to passed
  # and failed
  tally() {
    local show='^not ok' most=0 prefix= tailn=20 noprefix= name out line p f OPTIND=1 o t0
    t0=$(date +%s)
    while getopts 's:n:p:t:' o; do
      case $o in
        s) show=$OPTARG ;; n) most=$OPTARG ;; p) prefix=$OPTARG; noprefix=1 ;; t) tailn=$OPTARG ;;
        *) return 2 ;;
      esac
    done
    shift $((OPTIND - 1))
    name=$1; shift
    [ -n "$noprefix" ] || prefix="    $name: "
    out="$log/$name.log"
    "$@" >"$out" 2>&1
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
    grep -E "$show" "$out" | awk -v n="$most" 'n == 0 || NR <= n' | sed "s/^/$prefix/"
    [ -n "$line" ] || { line="0 passed, 1 failed"; tail -n "$tailn" "$out" | sed 's/^/    /'; }
    echo "# $name: $line ($(($(date +%s) - t0)) s)"
    read -r p _ f _ <<<"$line"
    passed=$((passed + p)); failed=$((failed + f))
  }
  step "build (-Werror)" make PG_CONFIG="$PG_CONFIG" COPT=-Werror
  step install make PG_CONFIG="$PG_CONFIG" install
  t0=$(date +%s)
  # (without the scale tests, which the host's plain run has: the Makefile's
  # REGRESS_LIGHT; the tree's environment is a clean one, so always)
  pg_virtualenv -t -c "-p $port" -v "$m" make PG_CONFIG="$PG_CONFIG" REGRESS_LIGHT=1 \
    installcheck >"$log/regress.log" 2>&1
  rp=$(grep -cE '^(test |     )?[a-z_0-9]+ +\.\.\. ok|^ok [0-9]+' "$log/regress.log")
  rf=$(grep -cE '\.\.\. FAILED|^not ok [0-9]+' "$log/regress.log")
  if [ "$rp" -eq 0 ] && [ "$rf" -eq 0 ]; then rf=1; tail -n 30 "$log/regress.log" | sed 's/^/    /'; fi
  grep -E '^not ok' "$log/regress.log" | sed 's/^/    regress: /'
  [ "$rf" -gt 0 ] && [ -f regression.diffs ] && head -n 60 regression.diffs | sed 's/^/    /'
  echo "# regress: $rp passed, $rf failed ($(($(date +%s) - t0)) s)"
  passed=$((passed + rp)); failed=$((failed + rf))
  # the dump/restore test (its place differs between layouts)
  dr=test/cluster/dump_restore.sh
  tally dump_restore pg_virtualenv -t -c "-p $port" -v "$m" bash "$dr"
  # the update chain (1.0 -> 1.1 -> 1.2 ...): 1.2 rewrites pg_proc rows in
  # place, which must hold on every version's catalog
  tally upgrade pg_virtualenv -t -c "-p $port" -v "$m" bash test/cluster/upgrade.sh
  # stored filters (1.3) under 8 concurrent clients, a kill -9 and pg_dump
  tally store pg_virtualenv -t -c "-p $port" -v "$m" env LOAD_SECONDS="${MATRIX_LOAD_SECONDS:-8}" bash test/cluster/store.sh
  # living filters (1.3): a tracked table under load, a kill -9 and pg_dump;
  # the mixed writes under READ COMMITTED and REPEATABLE READ for the
  # living-filters issue's 60 s on every version (MATRIX_CLIENT_SECONDS)
  tally track pg_virtualenv -t -c "-p $port" -v "$m" env LOAD_SECONDS="${MATRIX_LOAD_SECONDS:-8}" \
    SINGLE_SECONDS="${MATRIX_LOAD_SECONDS:-8}" CLIENT_SECONDS="${MATRIX_CLIENT_SECONDS:-60}" bash test/cluster/track.sh
  # the README's sql blocks, as pasted, in a fresh database (test/readme.sh;
  # the trees have no python3-psycopg or node: the host runs those blocks)
  tally -s '^(not ok|#   )' -n 40 readme pg_virtualenv -t -c "-p $port" -v "$m" env README_LANGS=sql bash test/readme.sh
  # Citus's aggregate calling convention (test-only module, private tree)
  tally citus_emulation env PG_MAJOR="$m" PGV_PORT=$((port + 1000)) bash test/cluster/citus_emulation.sh
  # from 18 the module's magic block names it and its version
  if [ "$m" -ge 18 ]; then
    want="cuckoo $(sed -n "s/^default_version *= *'\(.*\)'/\1/p" cuckoo.control)"
    line=$(pg_virtualenv -t -c "-p $port" -v "$m" psql -X -qAt -c "CREATE EXTENSION cuckoo" \
      -c "SELECT count(*) FROM generate_series(1, 10) g WHERE cuckoo_contains(cuckoo_create(10), g)" \
      -c "SELECT module_name || ' ' || version FROM pg_get_loaded_modules() WHERE file_name = 'cuckoo.so'" 2>&1 | grep -E '^cuckoo ')
    if [ "$line" = "$want" ]; then echo "ok - pg_get_loaded_modules() shows $want"; passed=$((passed + 1))
    else echo "not ok - pg_get_loaded_modules(): expected '$want', got '$line'"; failed=$((failed + 1)); fi
  fi
  # the Debian package, built and tested where no cuckoo was installed by
  # hand (test/package.sh uninstalls what "make install" put there first)
  if [ -n "${MATRIX_PACKAGE:-}" ] && [ "$m" = "$MATRIX_PACKAGE" ]; then
    tally -s '^(not ok|# |    )' -p '' -t 30 package bash test/package.sh "$m" "$port"
  fi
  rm -rf "$log"
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}

case $cmd in
  prepare) prepare ;;
  test)
    total_p=0 total_f=0
    # MATRIX_JOBS trees at once (default 1): the versions dealt round-robin
    # to that many streams, each testing its own one after the other (the
    # trees have their own ports and files); each version's lines are
    # printed whole, in the order given, when all are done
    jobs=${MATRIX_JOBS:-1}
    [[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "matrix: MATRIX_JOBS must be a positive integer, not '$jobs'" >&2; exit 2; }
    outdir=$(mktemp -d)
    pids=()
    for ((j = 0; j < jobs; j++)); do
      ( for ((i = j; i < ${#majors[@]}; i += jobs)); do
          m=${majors[i]}
          MATRIX_PACKAGE="${MATRIX_PACKAGE-17}" test_major "$m" >"$outdir/$m.out" 2>&1
        done ) &
      pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
    for m in "${majors[@]}"; do
      out=$(cat "$outdir/$m.out" 2>/dev/null)
      echo "$out"
      line=$(echo "$out" | grep -E '^# PostgreSQL' | tail -n 1)
      [ -n "$line" ] || { echo "not ok - PostgreSQL $m: no result line"; total_f=$((total_f + 1)); continue; }
      total_p=$((total_p + $(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1/')))
      total_f=$((total_f + $(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\2/')))
    done
    rm -rf "$outdir"
    echo "$total_p passed, $total_f failed"
    [ "$total_f" -eq 0 ]
    ;;
  inside) inside "$@" ;;
  *) sed -n '10,14p' "$0" >&2; exit 2 ;;
esac
