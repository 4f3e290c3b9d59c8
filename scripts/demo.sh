#!/usr/bin/env bash
# One command: install dependencies, build and install cuckoo (into the system
# PostgreSQL's tree: it stays installed, "make uninstall" removes it), start a
# throwaway PostgreSQL cluster and run the getting-started demo in it.
set -euo pipefail
cd "$(dirname "$0")/.."
# PG_MAJOR, PG_CONFIG and PGV_PORT (a temporary cluster's port of its own, so
# that runs can overlap)
. test/lib.sh
bash scripts/install-deps.sh
export PG_CONFIG
make -s PG_CONFIG="$PG_CONFIG" >/dev/null
make -s PG_CONFIG="$PG_CONFIG" install >/dev/null
# pg_virtualenv creates a temporary cluster, runs the command, and drops it.
pg_virtualenv -t -c "-p $PGV_PORT" -v "$PG_MAJOR" psql -X -q -v ON_ERROR_STOP=1 -f demo/demo.sql
echo "# cuckoo stays installed in $("$PG_CONFIG" --pkglibdir) and $("$PG_CONFIG" --sharedir)/extension (make uninstall removes it)"
