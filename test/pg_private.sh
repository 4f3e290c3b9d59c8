# Shared by test/regress_private.sh, test/memcheck/regress_asan.sh,
# test/memcheck/regress_valgrind.sh, the benchmarks in bench/ and a few tests
# (sourced, after test/lib.sh): build cuckoo out of tree with extra flags, install it into a
# private copy of the PostgreSQL install tree, run a server from that copy
# (wrapped by a sanitizer runtime or by valgrind) and run the pg_regress suite
# against it.  Nothing is written to the repository or to the system install.
#
# A script that only wants a running server with this build calls
#   pp_setup NAME; pp_server [SETTING ...]
# and one that compares builds on several servers calls pp_side once for each.
# (pp_server: pp_build_lib, pp_make_tree, pp_initdb, the settings, pp_start;
# it exits the script if a step fails).  Tests that report each step as a
# check call those steps one by one instead.
#
# Why a private tree works: PostgreSQL finds share/ and lib/ relative to the
# real path of its own executable (make_relative_path in src/port/path.c).  A
# copy of the postgres binary at $root/usr/lib/postgresql/15/bin/postgres
# therefore reads extensions from $root/usr/share/postgresql/15/extension and
# loads modules from $root/usr/lib/postgresql/15/lib.  Both are real
# directories of symlinks to the system files, except cuckoo's, which are the
# instrumented build's.  pp_check_private verifies this from inside the server.
#
# Variables the caller may set: PG_MAJOR, PG_CONFIG, PGV_PORT (defaults in
# test/lib.sh), CUCKOO_SRC (the source tree to build; default: this repository).

pp_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pp_src=$(cd "${CUCKOO_SRC:-$pp_here/..}" && pwd)
pp_sysbin=$("$PG_CONFIG" --bindir)
pp_sysshare=$("$PG_CONFIG" --sharedir)
pp_syslib=$("$PG_CONFIG" --pkglibdir)
# only the socket file name depends on the port: the server listens on no TCP
# port and its socket lives in a private directory, so runs cannot collide
pp_port="$PGV_PORT"
pp_pid=""

# initdb and postgres refuse to run as root: run them as the postgres user then
if [ "$(id -u)" -eq 0 ]; then
  pp_as_server() { runuser -u postgres -- "$@"; }
else
  pp_as_server() { "$@"; }
fi

# pp_setup: make the work directory ($pp_work) and remove it on exit
pp_setup() {
  umask 022                        # the server user reads the private tree
  pp_work=$(mktemp -d "${TMPDIR:-/tmp}/cuckoo-$1.XXXXXX")
  chmod 755 "$pp_work"
  pp_root="$pp_work/root"
  pp_build="$pp_work/build"
  pp_data="$pp_work/data"
  pp_sock="$pp_work/sock"
  pp_logs="$pp_work/logs"          # sanitizer / valgrind reports, one per process
  mkdir -p "$pp_build" "$pp_data" "$pp_sock" "$pp_logs"
  chmod 700 "$pp_data"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$pp_data" "$pp_sock" "$pp_logs"
  trap pp_cleanup EXIT
  trap 'exit 130' INT TERM
}

pp_cleanup() {
  pp_stop
  if [ -n "${KEEP_WORKDIR:-}" ]; then echo "# work directory kept: $pp_work"
  else rm -rf "$pp_work"; fi
}

# pp_build_lib MAKE-ARGS...: copy the sources (no build products) and build
pp_build_lib() {
  (cd "$pp_src" && tar cf - --exclude='*.o' --exclude='*.bc' --exclude='*.so' \
     Makefile cuckoo.control cuckoo--*.sql src sql expected) | (cd "$pp_build" && tar xf -)
  make -s -C "$pp_build" PG_CONFIG="$PG_CONFIG" with_llvm=no "$@" >"$pp_work/build.log" 2>&1
}

# pp_make_tree: the private install tree with the build's cuckoo in it
pp_make_tree() {
  local bin="$pp_root$pp_sysbin" lib="$pp_root$pp_syslib" share="$pp_root$pp_sysshare" f
  mkdir -p "$bin" "$lib" "$share/extension"
  cp "$pp_sysbin/postgres" "$bin/postgres"      # a copy: a symlink would resolve to the system tree
  for f in "$pp_syslib"/*; do
    case ${f##*/} in cuckoo.so|bitcode) ;; *) ln -s "$f" "$lib/" ;; esac
  done
  for f in "$pp_sysshare"/*; do [ "${f##*/}" = extension ] || ln -s "$f" "$share/"; done
  for f in "$pp_sysshare"/extension/*; do
    case ${f##*/} in cuckoo.control|cuckoo--*) ;; *) ln -s "$f" "$share/extension/" ;; esac
  done
  cp "$pp_build/cuckoo.so" "$lib/"
  cp "$pp_build/cuckoo.control" "$pp_build"/cuckoo--*.sql "$share/extension/"
  pp_postgres="$bin/postgres"
  pp_libdir="$lib"
}

# pp_initdb: a cluster made by the system initdb, configured for the private server
pp_initdb() {
  pp_as_server "$pp_sysbin/initdb" -A trust -E UTF8 --locale=C.UTF-8 -N -D "$pp_data" \
    >"$pp_work/initdb.log" 2>&1 || return 1
  cat >>"$pp_data/postgresql.conf" <<EOF
port = $pp_port
listen_addresses = ''
unix_socket_directories = '$pp_sock'
# the JIT would inline the system install's bitcode of cuckoo, not this build
jit = off
fsync = off
EOF
}

# pp_start [ENV=VALUE...] [WRAPPER...]: starts the private postgres, e.g.
#   pp_start env LD_PRELOAD=... postgres     or     pp_start valgrind ... postgres
# (the word "postgres" stands for the private binary); waits until it accepts
# connections (up to PP_START_SECONDS, default 120)
pp_start() {
  local args=() a i
  for a in "$@"; do
    if [ "$a" = postgres ]; then args+=("$pp_postgres"); else args+=("$a"); fi
  done
  pp_as_server "${args[@]}" -D "$pp_data" >"$pp_work/server.log" 2>&1 &
  pp_pid=$!
  for ((i = 0; i < ${PP_START_SECONDS:-120}; i++)); do
    pg_isready -q -h "$pp_sock" -p "$pp_port" && return 0
    kill -0 "$pp_pid" 2>/dev/null || break
    sleep 1
  done
  echo "# the server did not start; its log:"; sed 's/^/#   /' "$pp_work/server.log" | tail -n 30
  return 1
}

# pp_server [SETTING ...]: after pp_setup, a running private server with the
# build of $pp_src: pp_build_lib, pp_make_tree, pp_initdb, each SETTING appended to
# postgresql.conf as a line of its own (e.g. 'shared_buffers = 512MB'), then
# pp_start postgres.  A failed step exits the script with status 1 (so call
# it from the script's own shell, not from a subshell); a failed build first
# prints the last 20 lines of its log to stderr.
pp_server() {
  pp_build_lib || { tail -n 20 "$pp_work/build.log" >&2; exit 1; }
  pp_make_tree
  pp_initdb || exit 1
  [ $# -eq 0 ] || printf '%s\n' "$@" >>"$pp_data/postgresql.conf"
  pp_start postgres || exit 1
}

# pp_side NAME SOURCE [SETTING ...]: one of several private servers of a
# script, each with the build of its own source tree (bench/store_scan.sh,
# bench/value_path_join.sh: NAME before and after, side by side in one run):
# pp_setup (work directory named after the script and NAME), then pp_server
# SETTING ... with the build of SOURCE.  Sets ${NAME}_work, ${NAME}_data,
# ${NAME}_sock and ${NAME}_pid (NAME: a shell name); on exit, pp_stop_sides
# stops every side's server and removes its work directory (KEEP_WORKDIR=1
# keeps them).  pp_side_psql NAME runs psql on side NAME's server.
pp_sides=()
pp_side() {
  local name=$1 src=$2
  shift 2
  pp_src=$src
  pp_pid=""
  pp_setup "$(basename "$0" .sh)_$name"
  trap pp_stop_sides EXIT
  pp_sides+=("$name")
  eval "${name}_work=\$pp_work ${name}_data=\$pp_data ${name}_sock=\$pp_sock"
  pp_server "$@"
  eval "${name}_pid=\$pp_pid"
}

pp_stop_sides() {
  local s
  for s in "${pp_sides[@]}"; do
    eval "pp_pid=\${${s}_pid:-} pp_data=\$${s}_data pp_work=\$${s}_work"
    pp_stop
    if [ -n "${KEEP_WORKDIR:-}" ]; then echo "# work directory kept: $pp_work" >&2
    else rm -rf "$pp_work"; fi
  done
}

# pp_side_psql NAME PSQL-ARGS...: psql on side NAME's server, stopping at
# the first error
pp_side_psql() {
  local sock
  eval "sock=\$${1}_sock"
  shift
  psql -X -qAt -v ON_ERROR_STOP=1 -h "$sock" -p "$pp_port" -U postgres -d postgres "$@"
}

# pp_stop: fast shutdown, waiting for it (valgrind runs are slow to exit)
pp_stop() {
  [ -n "$pp_pid" ] || return 0
  if [ -f "$pp_data/postmaster.pid" ]; then
    pp_as_server "$pp_sysbin/pg_ctl" stop -D "$pp_data" -m fast -w -t 600 >/dev/null 2>&1 ||
      pp_as_server "$pp_sysbin/pg_ctl" stop -D "$pp_data" -m immediate -w -t 600 >/dev/null 2>&1
  fi
  wait "$pp_pid" 2>/dev/null
  pp_pid=""
}

# pp_psql PSQL-ARGS...: psql on the private server (its own socket directory)
pp_psql() { psql -X -qAt -h "$pp_sock" -p "$pp_port" -U postgres -d postgres "$@" 2>&1; }

# pp_check_private: the running server takes share/ and lib/ from the private
# tree and has loaded the instrumented cuckoo.so (its own /proc/self/maps)
pp_check_private() {
  check "server's PKGLIBDIR is the private tree" "$pp_libdir" \
    "$(pp_psql -c "SELECT setting FROM pg_config WHERE name = 'PKGLIBDIR'")"
  check "server's SHAREDIR is the private tree" "$pp_root$pp_sysshare" \
    "$(pp_psql -c "SELECT setting FROM pg_config WHERE name = 'SHAREDIR'")"
  check "CREATE EXTENSION loads the private build's cuckoo.so" "$pp_libdir/cuckoo.so" \
    "$(pp_psql -c "CREATE DATABASE cuckoo_probe" -c "\\c cuckoo_probe" -c "CREATE EXTENSION cuckoo" \
        -c "SELECT DISTINCT regexp_replace(l, '^.* ', '') FROM regexp_split_to_table(
              pg_read_file('/proc/self/maps'), E'\\n') l
            WHERE cuckoo_contains(cuckoo_add(cuckoo_create(10), 1), 1) AND l LIKE '%/cuckoo.so'" \
        -c "\\c postgres" -c "DROP DATABASE cuckoo_probe")"
}

# pp_regress: make installcheck in the build copy against the private server;
# one check per test file, pg_regress's output in $pp_work/regress.log.
# REGRESS_TESTS="setup type_io ..." runs only those files (setup first).
pp_regress() {
  local line name result n=0 times="" expected
  PGHOST="$pp_sock" PGPORT="$pp_port" PGUSER=postgres \
    make -C "$pp_build" PG_CONFIG="$PG_CONFIG" installcheck \
      ${REGRESS_TESTS:+REGRESS="$REGRESS_TESTS"} >"$pp_work/regress.log" 2>&1
  while read -r line; do
    name=$(echo "$line" | sed -E 's/^(test |(not )?ok [0-9]+ +[-+] +)?//; s/ .*//')
    if echo "$line" | grep -qE '\.\.\. ok|^ok '; then result=ok; else result=FAILED; fi
    check "pg_regress $name" ok "$result"
    times="$times, $name $(echo "$line" | grep -oE '[0-9]+ ms$' | sed 's/ ms$//')"
    n=$((n + 1))
  done < <(grep -E '^(test +|     +)?[a-z_0-9]+ +\.\.\. (ok|FAILED|failed)|^(not )?ok [0-9]+ ' "$pp_work/regress.log")
  if [ -n "${REGRESS_TESTS:-}" ]; then expected=$(echo $REGRESS_TESTS | wc -w); else expected=$(make -s -C "$pp_build" PG_CONFIG="$PG_CONFIG" regress-list | wc -w); fi
  check "pg_regress ran every file asked for" "$expected" "$n"
  pp_nfiles=$n
  echo "# pg_regress ms:${times#,}"
  if [ -s "$pp_build/regression.diffs" ]; then
    echo "# regression.diffs (head):"; head -n 60 "$pp_build/regression.diffs" | sed 's/^/#   /'
  fi
}

# pp_check_no_crash: the postmaster saw no child die of a signal or an error exit
pp_check_no_crash() {
  check "no server process crashed or exited with an error code" "" \
    "$(grep -E 'terminated by signal|exited with exit code ([2-9]|[1-9][0-9]+)|terminating any other active server processes' "$pp_work/server.log" | head -n 3)"
}
