#!/usr/bin/env bash
# Malformed values through the binary input (cuckoo_recv) and the aggregate
# paths, inside a throwaway cluster (pg_virtualenv sets PGHOST, PGPORT,
# PGUSER; the user is a superuser, needed for server-side COPY FROM a file and
# for the crafted aggregate in part 4).
#
#   1. RECV_MUTATIONS (default 12,000) mutated values (test/recv_mutations.py:
#      bit flips, bytes, truncations, extensions, header fields set to
#      boundary and huge values, wrong item counts, wrong lengths, victim
#      slots, semi-sorted codes, padding, splices, random bytes, the
#      version-2 header and generation counts, version swaps, two 32 MB
#      values; seeds of format versions 1 and 2), each its own binary COPY file, each loaded with
#      COPY ... FROM file (FORMAT binary): each ends as a valid filter, stored
#      byte for byte as sent, that works (cuckoo_info, union, shrink, text and
#      bytea round trips), or as an ERROR with SQLSTATE 22P03; the server never
#      restarts.  The first 500 go through psql's \copy (the client protocol)
#      too, with the same outcomes.
#   2. cuckoo_union_agg over the accepted values grouped by shape and kind, in
#      serial, partitionwise and parallel plans (the last two run its combine
#      function, cuckoo_union_trans): a valid filter or 22023/42804/54000, the
#      same in every plan (a union 90% full or more may fit in one insertion
#      order and not in another).
#   3. A binary COPY whose last row is garbage is refused as a whole, and
#      pg_dump | psql of the database (seeds and accepted values) then
#      restores every filter byte for byte.
#   4. cuckoo_agg(value [, fpr])'s deserialise function: not callable from
#      SQL, and an ordinary role cannot build an aggregate around it; a
#      superuser can (with bytearecv as the serial function), so crafted
#      states go through it and cuckoo_agg_combine in partitionwise and
#      parallel plans: accepted or 22P03, never a crash.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
COUNT="${RECV_MUTATIONS:-12000}"
STATES="${RECV_STATES:-600}"
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap '[ -n "${KEEP_TMP:-}" ] && echo "# kept $tmp" || rm -rf "$tmp"' EXIT
started=$(date +%s)

createdb recv
q recv "CREATE EXTENSION cuckoo; CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')" >/dev/null
q recv "CREATE TABLE seeds (id int PRIMARY KEY, name text, f cuckoofilter);
   INSERT INTO seeds VALUES
   (1, 'int b4', cuckoo_add_array(cuckoo_create(200), ARRAY(SELECT generate_series(1, 150)))),
   (2, 'semisort', cuckoo_add_array(cuckoo_create(100, semisort => true), ARRAY(SELECT generate_series(1, 90)))),
   (3, 'text b8', cuckoo_add_array(cuckoo_create(60, 0.01, 8), ARRAY(SELECT g::text FROM generate_series(1, 50) g))),
   (4, 'full, victim', cuckoo_add_array(cuckoo_create(4, max_kicks => 0), ARRAY[1, 2, 3, 4, 5])),
   (5, 'empty b2', cuckoo_create(30, 0.01, 2)),
   (6, 'sized agg', (SELECT cuckoo_agg(g) FROM generate_series(1, 300) g)),
   (7, 'uuid', (SELECT cuckoo_agg(md5(g::text)::uuid) FROM generate_series(1, 100) g)),
   (8, 'enum (other)', cuckoo_add_array(cuckoo_create(20), ARRAY['ok', 'happy']::mood[])),
   (9, '32-bit', cuckoo_add_array(cuckoo_create(50, fingerprint_bits => 32), ARRAY(SELECT generate_series(1, 40)))),
   (10, '4-bit b2', cuckoo_add_array(cuckoo_create(40, 0.3, 2, fingerprint_bits => 4), ARRAY(SELECT generate_series(1, 20)))),
   (11, '2^k buckets', cuckoo_add_array(cuckoo_create(1200), ARRAY(SELECT generate_series(1, 1000)))),
   -- format version 2 (1.2)
   (12, 'v2 grown', cuckoo_add_array(cuckoo_create(20, expansion => 2), ARRAY(SELECT generate_series(1, 300)))),
   (13, 'v2 rotated fixed', cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_create(100), ARRAY(SELECT generate_series(1, 60))), 3),
                                            ARRAY(SELECT generate_series(61, 80)))),
   (14, 'v2 grown rotated', cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_create(10, expansion => 2),
                                            ARRAY(SELECT g::text FROM generate_series(1, 100) g)), 5), ARRAY['a', 'b'])),
   (15, 'v2 agg grown', (SELECT cuckoo_agg(g, 30, 0.001, 2) FROM generate_series(1, 200) g)),
   (16, 'v2 empty growing', cuckoo_create(50, expansion => 2))" >/dev/null
q recv "SELECT name || E'\t' || encode(f::bytea, 'hex') FROM seeds ORDER BY id" >"$tmp/seeds.tsv"

gen_start=$(date +%s)
python3 "$here/recv_mutations.py" "$tmp/seeds.tsv" "$tmp/v" "$COUNT" 42
check "generated $COUNT binary COPY files" "$COUNT" "$(wc -l <"$tmp/v/manifest.tsv")"
chmod -R a+rX "$tmp"
echo "# generated in $(( $(date +%s) - gen_start )) s; $(du -sm "$tmp/v" | cut -f1) MB"

# 1. Server-side binary COPY, one file per value.
boot=$(q recv "SELECT pg_postmaster_start_time()")
q recv "CREATE TABLE manifest (i int PRIMARY KEY, class text, len int, md5 text);
   CREATE TABLE target (f cuckoofilter);
   CREATE TABLE outcome (i int PRIMARY KEY, outcome text, message text, same_bytes bool, ops text);
   CREATE TABLE accepted (i int PRIMARY KEY, f cuckoofilter) WITH (fillfactor = 10)" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d recv -c "\\copy manifest FROM '$tmp/v/manifest.tsv'"
copy_start=$(date +%s)
q recv "SET recv.dir = '$tmp/v';
DO \$\$
DECLARE
  r record;
  v cuckoofilter;
  ops text;
  st text;
  msg text;
BEGIN
  FOR r IN SELECT * FROM manifest ORDER BY i LOOP
    BEGIN
      EXECUTE format('COPY target FROM %L (FORMAT binary)', current_setting('recv.dir') || '/v' || r.i || '.bin');
      DELETE FROM target RETURNING f INTO v;
      BEGIN
        -- accepted: it must behave as a filter
        ops := CASE WHEN v::text::cuckoofilter = v AND v::bytea::cuckoofilter = v
                     AND cuckoo_union(v, v)::bytea::cuckoofilter IS NOT NULL
                    THEN 'ok' ELSE 'mismatch' END;
        -- shrink keeps the items, or (a grown filter whose entries no smaller
        -- table holds, far above what its items need) says it cannot compact
        BEGIN
          IF (cuckoo_info(cuckoo_shrink(v))).items <> (cuckoo_info(v)).items THEN
            ops := 'shrink changed the items';
          END IF;
        EXCEPTION WHEN program_limit_exceeded THEN
          GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
          IF msg <> 'cuckoo_shrink cannot compact this filter' OR (cuckoo_info(v)).format_version < 2 THEN
            RAISE;
          END IF;
        END;
      EXCEPTION WHEN OTHERS THEN
        ops := SQLSTATE || ': ' || SQLERRM;
      END;
      INSERT INTO outcome VALUES (r.i, 'valid', NULL, md5(v::bytea) = r.md5, ops);
      INSERT INTO accepted VALUES (r.i, v);
    EXCEPTION WHEN OTHERS THEN
      GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
      INSERT INTO outcome VALUES (r.i, st, msg, NULL, NULL);
    END;
  END LOOP;
END \$\$" >/dev/null
check "binary COPY: every value has an outcome" "$COUNT" "$(q recv "SELECT count(*) FROM outcome")"
echo "# binary COPY of $COUNT values in $(( $(date +%s) - copy_start )) s"
check "binary COPY: every value is a valid filter or 22P03" "" \
  "$(q recv "SELECT string_agg(DISTINCT outcome, ',') FROM outcome WHERE outcome NOT IN ('valid', '22P03')")"
q recv "SELECT '#   other outcome: ' || i || ' ' || class || ': ' || outcome || ' ' || message FROM outcome JOIN manifest USING (i)
   WHERE outcome NOT IN ('valid', '22P03') ORDER BY i LIMIT 10"
check "binary COPY: accepted values are stored byte for byte as sent" "t" \
  "$(q recv "SELECT coalesce(bool_and(same_bytes), true) FROM outcome WHERE outcome = 'valid'")"
check "binary COPY: accepted values pass info, union, shrink and text and bytea round trips" "" \
  "$(q recv "SELECT string_agg(DISTINCT ops, '; ') FROM outcome WHERE outcome = 'valid' AND ops <> 'ok'")"
check "binary COPY: the 32 MB empty filter is accepted, the 32 MB random one refused" "valid 22P03" \
  "$(q recv "SELECT string_agg(outcome, ' ' ORDER BY class) FROM outcome JOIN manifest USING (i) WHERE class LIKE 'big%'")"
check "the server never restarted" "$boot" "$(q recv "SELECT pg_postmaster_start_time()")"
echo "# $(q recv "SELECT count(*) || ' values: ' || count(*) FILTER (WHERE outcome = 'valid') || ' accepted, '
                  || count(*) FILTER (WHERE outcome = '22P03') || ' refused with 22P03, '
                  || count(*) FILTER (WHERE outcome NOT IN ('valid', '22P03')) || ' other'
           FROM outcome")"
echo "# per class (accepted/tried): $(q recv "SELECT string_agg(class || ' ' || a || '/' || n, ', ' ORDER BY class)
  FROM (SELECT class, count(*) FILTER (WHERE outcome = 'valid') a, count(*) n FROM outcome JOIN manifest USING (i) GROUP BY class) s")"
echo "# most frequent refusals: $(q recv "SELECT string_agg(m || ' (' || n || ')', '; ' ORDER BY n DESC) FROM (
  SELECT regexp_replace(message, '[0-9]+', 'N', 'g') m, count(*) n FROM outcome WHERE outcome = '22P03' GROUP BY 1 ORDER BY 2 DESC LIMIT 6) s")"
check "a good part of the values is accepted and a good part refused" "t" \
  "$(q recv "SELECT count(*) FILTER (WHERE outcome = 'valid') > $COUNT / 20 AND count(*) FILTER (WHERE outcome = '22P03') > $COUNT / 2 FROM outcome")"

# The same values through psql's \copy (COPY FROM STDIN, the client protocol).
n_client=$(( COUNT < 500 ? COUNT : 500 ))
{
  echo '\set VERBOSITY sqlstate'
  for i in $(seq 1 "$n_client"); do
    echo "\\warn v$i"
    echo "\\copy target FROM '$tmp/v/v$i.bin' WITH (FORMAT binary)"
  done
} >"$tmp/client.sql"
q recv "TRUNCATE target" >/dev/null
psql -X -q -d recv -f "$tmp/client.sql" 2>"$tmp/client.err" >/dev/null
awk '/^v[0-9]+$/ { if (i) print i "\t" o; i = substr($0, 2); o = "valid"; next }
     /ERROR:/ { o = $NF } END { if (i) print i "\t" o }' "$tmp/client.err" >"$tmp/client.tsv"
check "\\copy (client protocol): the same outcome for each of the first $n_client values" \
  "$(q recv "SELECT string_agg(i || ' ' || outcome, ',' ORDER BY i) FROM outcome WHERE i <= $n_client")" \
  "$(sort -n "$tmp/client.tsv" | awk -F'\t' '{ printf "%s%s %s", (NR > 1 ? "," : ""), $1, $2 }')"
check "\\copy: the accepted ones are stored as sent" \
  "$(q recv "SELECT string_agg(md5, ',' ORDER BY md5) FROM manifest JOIN outcome USING (i) WHERE i <= $n_client AND outcome = 'valid'")" \
  "$(q recv "SELECT string_agg(md5(f::bytea), ',' ORDER BY md5(f::bytea)) FROM target")"

# 2. cuckoo_union_agg over the accepted values, grouped by shape and kind,
# serial and parallel (the combine function is cuckoo_union_trans).
q recv "ALTER TABLE accepted SET (parallel_workers = 2);
   CREATE TABLE groups AS
   SELECT row_number() OVER (ORDER BY k) AS g, k, n FROM (
     SELECT concat_ws('/', i.buckets, i.bucket_size, i.fingerprint_bits, i.semisort, i.value_type) AS k, count(*) AS n
     FROM accepted, cuckoo_info(f) i GROUP BY 1) s;
   ALTER TABLE accepted ADD COLUMN g int;
   UPDATE accepted SET g = x.g FROM (
     SELECT a.i, groups.g FROM accepted a, cuckoo_info(a.f) i, groups
     WHERE groups.k = concat_ws('/', i.buckets, i.bucket_size, i.fingerprint_bits, i.semisort, i.value_type)) x
   WHERE x.i = accepted.i" >/dev/null
q recv "VACUUM ANALYZE accepted" >/dev/null
ngroups=$(q recv "SELECT count(*) FROM groups")
par="SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
     SET max_parallel_workers_per_gather = 2; SET enable_partitionwise_aggregate = off;"
pwise="SET enable_partitionwise_aggregate = on; SET max_parallel_workers_per_gather = 0;"
serial="SET enable_partitionwise_aggregate = off; SET max_parallel_workers_per_gather = 0;"
# Each group is copied into a table of its own, in three partitions that are
# never analysed (so the planner expects many rows): partitionwise
# aggregation then runs a Partial Aggregate per partition and the combine
# function (cuckoo_union_trans) on their states, in one process; the
# parallel plan runs Partial Aggregates in the workers under Gather.
q recv "CREATE TABLE grp (p int, f cuckoofilter) PARTITION BY LIST (p);
   CREATE TABLE grp0 PARTITION OF grp FOR VALUES IN (0) WITH (autovacuum_enabled = off, parallel_workers = 2);
   CREATE TABLE grp1 PARTITION OF grp FOR VALUES IN (1) WITH (autovacuum_enabled = off, parallel_workers = 2);
   CREATE TABLE grp2 PARTITION OF grp FOR VALUES IN (2) WITH (autovacuum_enabled = off, parallel_workers = 2);
   INSERT INTO grp SELECT row_number() OVER (ORDER BY i) % 3, f FROM accepted
   WHERE g = (SELECT g FROM groups ORDER BY n DESC LIMIT 1)" >/dev/null
# (The plans are matched without "echo | grep -q": under pipefail that
# fails when grep exits at the match before echo has written the rest.)
plan=$(q recv "$pwise EXPLAIN (COSTS OFF) SELECT cuckoo_union_agg(f) FROM grp" 2>&1)
got="$(grep -c 'Finalize Aggregate' <<<"$plan") $(grep -c 'Partial Aggregate' <<<"$plan")"
check "the partitionwise plan: Finalize Aggregate over a Partial Aggregate per partition" "1 3" "$got"
[ "$got" = "1 3" ] || sed 's/^/# /' <<<"$plan"
plan=$(q recv "$par EXPLAIN (COSTS OFF) SELECT cuckoo_union_agg(f) FROM grp" 2>&1)
got=$([[ $plan == *"Partial Aggregate"* && $plan == *Gather* ]] && echo 1)
check "the parallel plan: Partial Aggregate under Gather" 1 "$got"
[ "$got" = 1 ] || sed 's/^/# /' <<<"$plan"
union_start=$(date +%s)
for mode in serial pwise par; do
  {
    echo '\set VERBOSITY sqlstate'
    echo "${!mode}"
    for g in $(seq 1 "$ngroups"); do
      echo "\\warn g$g"
      echo "DELETE FROM grp; INSERT INTO grp SELECT row_number() OVER (ORDER BY i) % 3, f FROM accepted WHERE g = $g;"
      echo "\\unset res"
      echo "SELECT 'r ' || coalesce(md5(u::bytea), 'NULL') || ' ' || (u::bytea::cuckoofilter = u AND u::text::cuckoofilter = u)::int
                   || ' ' || (cuckoo_info(u)).items AS res
            FROM (SELECT cuckoo_union_agg(f) AS u FROM grp) s \\gset"
      echo "\\warn :res"
    done
  } >"$tmp/union_$mode.sql"
  psql -X -q -d recv -f "$tmp/union_$mode.sql" 2>"$tmp/union_$mode.err" >/dev/null
  awk '/^g[0-9]+$/ { if (g) print g "\t" o; g = substr($0, 2); o = "none"; next }
       /^r / { o = ($3 == "1" ? "valid " $4 : "INVALID") } /ERROR:/ { o = $NF }
       END { if (g) print g "\t" o }' "$tmp/union_$mode.err" | sort -n >"$tmp/union_$mode.tsv"
  check "cuckoo_union_agg ($mode): each of $ngroups groups gives a valid filter or 22023/42804/54000" "$ngroups " \
    "$(wc -l <"$tmp/union_$mode.tsv") $(awk -F'\t' '$2 !~ /^(valid [0-9]+|22023|42804|54000)$/ { printf "%s ", $0 }' "$tmp/union_$mode.tsv")"
done
q recv "CREATE TABLE union_out (mode text, g int, outcome text)" >/dev/null
for mode in serial pwise par; do
  sed "s/^/$mode\t/" "$tmp/union_$mode.tsv" >"$tmp/union_out.tsv"
  psql -X -q -v ON_ERROR_STOP=1 -d recv -c "\\copy union_out FROM '$tmp/union_out.tsv'"
done
# Outcomes agree, except that a union filled to 90% or more of its entries
# may fit in one insertion order and not in another (54000), and that the
# item count of a union of growing filters depends on the order of the
# unions (docs/DESIGN.md, "Union"): there both must be valid filters.
for mode in pwise par; do
  check "cuckoo_union_agg: $mode and serial plans agree (outcome and items, items of growing filters aside; 54000 only near full)" "" \
    "$(q recv "SELECT string_agg('group ' || g || ': ' || s.outcome || ' / ' || o.outcome, '; ' ORDER BY g)
          FROM union_out s JOIN union_out o USING (g) JOIN groups USING (g)
          WHERE s.mode = 'serial' AND o.mode = '$mode' AND s.outcome <> o.outcome
            AND NOT ('54000' IN (s.outcome, o.outcome)
                     AND coalesce(substring(s.outcome FROM '^valid ([0-9]+)'), substring(o.outcome FROM '^valid ([0-9]+)'))::bigint
                         >= 0.9 * split_part(k, '/', 1)::bigint * split_part(k, '/', 2)::bigint)
            AND NOT (s.outcome LIKE 'valid %' AND o.outcome LIKE 'valid %'
                     AND EXISTS (SELECT FROM accepted a, cuckoo_info(a.f) i
                                 WHERE a.g = groups.g AND i.expansion = 2))")"
done
echo "# near-full unions that fit in one plan and not in another: $(q recv "SELECT coalesce(string_agg(DISTINCT 'group ' || g || ' (' || k || ', ' || s.outcome || ')', '; '), 'none')
   FROM union_out s JOIN union_out o USING (g) JOIN groups USING (g) WHERE s.mode = 'serial' AND o.mode <> 'serial' AND s.outcome <> o.outcome")"
echo "# cuckoo_union_agg over $(q recv "SELECT count(*) FROM accepted") accepted values in $ngroups groups (shape and kind), three plans in $(( $(date +%s) - union_start )) s: $(cut -f2 "$tmp/union_serial.tsv" | sed 's/ .*//' | sort | uniq -c | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')"

# 3. A rejected binary COPY leaves nothing behind, and the database dumps and
# restores (seeds and every accepted value) byte for byte.
q recv "CREATE TABLE kept (id text PRIMARY KEY, f cuckoofilter);
   INSERT INTO kept SELECT 'seed ' || id, f FROM seeds;
   INSERT INTO kept SELECT 'accepted ' || i, f FROM accepted" >/dev/null
kept=$(q recv "SELECT count(*) || ' ' || md5(string_agg(id || md5(f::bytea), ',' ORDER BY id)) FROM kept")
psql -X -q -d recv -c "\\copy (SELECT 'new ' || i, f FROM accepted ORDER BY i LIMIT 50) TO '$tmp/good.bin' (FORMAT binary)"
bad=$(q recv "SELECT i FROM outcome WHERE outcome = '22P03' ORDER BY i LIMIT 1")
python3 - "$tmp/good.bin" "$tmp/v/v$bad.bin" "$tmp/mixed.bin" <<'PY'
import struct, sys
good = open(sys.argv[1], "rb").read()[:-2]                  # without the trailer
bad = open(sys.argv[2], "rb").read()[19:-2]                 # the one tuple: 1 field
field = bad[2:]                                             # length + value
row = struct.pack(">h", 2) + struct.pack(">i", 7) + b"garbage" + field
open(sys.argv[3], "wb").write(good + row + struct.pack(">h", -1))
PY
chmod 644 "$tmp/mixed.bin"
out=$(psql -X -q -d recv -c "\\set VERBOSITY sqlstate" -c "COPY kept FROM '$tmp/mixed.bin' (FORMAT binary)" 2>&1)
check "a binary COPY of 50 good rows and one garbage row is refused with 22P03" "ERROR:  22P03" "$out"
check "and leaves the table as it was" "$kept" \
  "$(q recv "SELECT count(*) || ' ' || md5(string_agg(id || md5(f::bytea), ',' ORDER BY id)) FROM kept")"
createdb recv_restored
pg_dump -d recv >"$tmp/recv.sql"
check "pg_dump after the refused COPY" 0 $?
psql -X -q -v ON_ERROR_STOP=1 -d recv_restored -f "$tmp/recv.sql" >/dev/null 2>"$tmp/restore.err"
check "psql restores the dump without an error" "0 " "$? $(grep -c ERROR "$tmp/restore.err" | sed 's/^0$//')"
check "every filter is restored byte for byte ($(echo "$kept" | cut -d' ' -f1) rows)" "$kept" \
  "$(DB=recv_restored q recv "SELECT count(*) || ' ' || md5(string_agg(id || md5(f::bytea), ',' ORDER BY id)) FROM kept")"

# 4. cuckoo_agg's deserialise function.
check "cuckoo_agg_deserialize cannot be called from SQL (no value of type internal)" "ERROR:  42846" \
  "$(psql -X -q -d recv -c '\set VERBOSITY sqlstate' -c "SELECT cuckoo_agg_deserialize('\\x00'::bytea, NULL::internal)" 2>&1)"
q recv "CREATE ROLE recv_app LOGIN PASSWORD 'recv_pw'; GRANT CREATE ON SCHEMA public TO recv_app" >/dev/null
AGG="CREATE AGGREGATE crafted_state(bytea, bytea) (SFUNC = bytea_string_agg_transfn, STYPE = internal,
       SERIALFUNC = bytearecv, DESERIALFUNC = cuckoo_agg_deserialize, COMBINEFUNC = cuckoo_agg_combine,
       FINALFUNC = cuckoo_agg_serialize, PARALLEL = SAFE)"
check "an ordinary role cannot build an aggregate around it (internal state)" "ERROR:  42P13" \
  "$(PGPASSWORD=recv_pw psql -X -q -U recv_app -d recv -c '\set VERBOSITY sqlstate' -c "$AGG" 2>&1)"
# As superuser: in a plan with partial aggregation, bytearecv (internal ->
# bytea) as the serial function turns the StringInfo state of
# bytea_string_agg_transfn into exactly the bytes of the rows; the finalize
# step passes them to cuckoo_agg_deserialize and cuckoo_agg_combine, and
# cuckoo_agg_serialize, as final function, writes the combined state out
# again.  Each query runs only after is_partial() has seen a Partial
# Aggregate in its plan: in a plan without one the final function would get
# the StringInfo (this mix of internal-state functions is why only
# superusers may create such aggregates).
q recv "$AGG" >/dev/null
q recv "CREATE FUNCTION is_partial(query text) RETURNS boolean LANGUAGE plpgsql AS \$\$
   DECLARE plan text;
   BEGIN
     EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || query INTO plan;
     RETURN plan LIKE '%\"Partial Mode\": \"Partial\"%' AND plan LIKE '%\"Partial Mode\": \"Finalize\"%';
   END \$\$" >/dev/null
python3 - "$STATES" "$tmp/states.tsv" <<'PY'
import random, struct, sys
n, out = int(sys.argv[1]), open(sys.argv[2], "w")
r = random.Random(7)
def state(kind, tag, fpr, hashes, magic=0x43484153, pad=0, pad2=0):
    return struct.pack("<IHHIId%dQ" % len(hashes), magic, kind, pad, tag, pad2, fpr, *hashes)
def hashes(k=None):
    """Distinct hashes in ascending order, as cuckoo_agg_serialize writes them."""
    k = r.choice([0, 1, 2, 5, 50, 1000]) if k is None else k
    hs = sorted({r.getrandbits(64) for _ in range(k)})
    if hs and r.random() < 0.2 and hs[0] != 0: hs = [0] + hs
    return hs
def good(hs=None):
    kind = r.randrange(1, 12)
    return state(kind, r.randrange(1, 1 << 32) if kind == 11 else 0, r.choice([0.01, 0.5, 1e-9, 0.999]),
                 hashes() if hs is None else hs)
classes = ["valid", "length", "magic", "kind", "pad", "tag", "fpr", "tiny-fpr", "flip", "any-kind",
           "huge", "unsorted"]
for i in range(1, n + 1):
    c = r.choices(classes, [5 if c != "huge" else 1 for c in classes])[0]
    b = good()
    if c == "length": b = b[:r.choice([x for x in (0, 1, 23, 25, 31, 33, len(b) - 1) if x < len(b)])] if r.random() < 0.7 else b + b"\x01"
    elif c == "magic": b = struct.pack("<I", r.getrandbits(32)) + b[4:]
    elif c == "kind": b = b[:4] + struct.pack("<H", r.choice([12, 255, 65535])) + b[6:]
    elif c == "pad": b = b[:6] + struct.pack("<H", 1) + b[8:] if r.random() < 0.5 else b[:12] + struct.pack("<I", 1) + b[16:]
    elif c == "tag": b = state(11, 0, 0.01, [1, 2]) if r.random() < 0.5 else state(3, 99, 0.01, [1, 2])
    elif c == "fpr": b = b[:16] + struct.pack("<d", r.choice([0.0, 1.0, -0.5, 2.0, float("nan"), float("inf"), -float("inf")])) + b[24:]
    elif c == "tiny-fpr": b = b[:16] + struct.pack("<d", r.choice([5e-324, 1e-300])) + b[24:]   # in (0, 1)
    elif c == "flip":
        b = bytearray(b); p = r.randrange(len(b)); b[p] ^= 1 << r.randrange(8); b = bytes(b)
    elif c == "any-kind": b = state(0, 0, 0.01, hashes(3))
    elif c == "huge": b = good(hashes(r.choice([20000, 100000])))
    elif c == "unsorted":                       # repeated or descending hashes: refused or merged
        hs = hashes(r.choice([2, 5, 50]))
        hs = hs[::-1] if r.random() < 0.5 else hs + hs[:1]
        b = good(hs)
    out.write("%d\t%s\t\\\\x%s\n" % (i, c, b.hex()))
PY
q recv "CREATE TABLE states (i int, class text, b bytea);
   CREATE TABLE one (p int, b bytea) PARTITION BY LIST (p);
   CREATE TABLE one0 PARTITION OF one FOR VALUES IN (0) WITH (autovacuum_enabled = off, parallel_workers = 2);
   CREATE TABLE one1 PARTITION OF one FOR VALUES IN (1) WITH (autovacuum_enabled = off, parallel_workers = 2)" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d recv -c "\\copy states FROM '$tmp/states.tsv'"
query="SELECT crafted_state(b, ''::bytea) AS x FROM one"
check "crafted aggregate, partitionwise: a Partial Aggregate per partition, then Finalize" "t" \
  "$(q recv "$pwise SELECT is_partial(\$q\$$query\$q\$)")"
check "crafted aggregate, parallel: Partial Aggregate under Gather, then Finalize" "t" \
  "$(q recv "$par SELECT is_partial(\$q\$$query\$q\$)")"
n_par=$(( STATES < 100 ? STATES : 100 ))
{
  echo '\set VERBOSITY sqlstate'
  echo "$pwise"
  for i in $(seq 1 "$STATES"); do
    [ "$i" = $(( STATES - n_par + 1 )) ] && echo "$par"      # the last ones in parallel plans
    echo "\\warn s$i"
    echo "DELETE FROM one; INSERT INTO one SELECT 0, b FROM states WHERE i = $i;"
    echo "SELECT is_partial(\$q\$$query\$q\$) AS partial \\gset"
    echo "\\unset res"
    echo "\\if :partial"
    echo "SELECT 'r ' || coalesce(md5(x), 'NULL') AS res FROM ($query) s \\gset"
    echo "\\warn :res"
    echo "\\else"
    echo "\\warn not partial"
    echo "\\endif"
  done
} >"$tmp/states.sql"
st_start=$(date +%s)
psql -X -q -d recv -f "$tmp/states.sql" 2>"$tmp/states.err" >/dev/null
awk '/^s[0-9]+$/ { if (i) print i "\t" o; i = substr($0, 2); o = "none\t\\N"; next }
     /^r [0-9a-f]+$/ { o = "accepted\t" $2 } /^not partial$/ { o = "not partial\t\\N" }
     /ERROR:/ { o = $NF "\t\\N" } END { if (i) print i "\t" o }' "$tmp/states.err" >"$tmp/states.out"
q recv "CREATE TABLE state_outcome (i int, outcome text, out_md5 text)" >/dev/null
psql -X -q -d recv -c "\\copy state_outcome FROM '$tmp/states.out' (FORMAT text)"
check "crafted states: every query ran with partial aggregation" "0" \
  "$(q recv "SELECT count(*) FROM states LEFT JOIN state_outcome USING (i) WHERE outcome IS NULL OR outcome IN ('none', 'not partial')")"
check "crafted states: each is accepted or refused with 22P03" "" \
  "$(q recv "SELECT string_agg(DISTINCT class || ':' || outcome, ' ') FROM states JOIN state_outcome USING (i)
        WHERE outcome NOT IN ('accepted', '22P03')")"
check "crafted states: well-formed ones are accepted, malformed headers and lengths refused" "" \
  "$(q recv "SELECT string_agg(DISTINCT class || ':' || outcome, ' ') FROM states JOIN state_outcome USING (i)
        WHERE (class IN ('valid', 'huge', 'tiny-fpr') AND outcome <> 'accepted')
           OR (class IN ('length', 'magic', 'kind', 'any-kind', 'pad', 'tag', 'fpr') AND outcome <> '22P03')")"
check "crafted states: a well-formed state comes out of deserialise, combine and serialise unchanged" "0" \
  "$(q recv "SELECT count(*) FROM states JOIN state_outcome USING (i)
        WHERE class IN ('valid', 'huge', 'tiny-fpr') AND out_md5 IS DISTINCT FROM md5(b)")"
q recv "DELETE FROM one; INSERT INTO one SELECT 0, b FROM states WHERE class = 'valid' AND substr(b, 5, 2) = '\\x0100' LIMIT 1;
   INSERT INTO one SELECT 1, b FROM states WHERE class = 'valid' AND substr(b, 5, 2) = '\\x0300' LIMIT 1" >/dev/null
check "two well-formed states of different value types: an error (42804), not a crash" "2 t ERROR:  42804" \
  "$(q recv "SELECT count(*) FROM one") $(q recv "$pwise SELECT is_partial(\$q\$$query\$q\$)") $(psql -X -q -d recv -c '\set VERBOSITY sqlstate' -c "$pwise" -c "SELECT md5(x) FROM ($query) s" 2>&1)"
check "the server never restarted" "$boot" "$(q recv "SELECT pg_postmaster_start_time()")"
echo "# $STATES crafted states through cuckoo_agg_deserialize ($n_par of them in parallel plans) in $(( $(date +%s) - st_start )) s: $(q recv "SELECT string_agg(outcome || ' ' || n, ', ') FROM (SELECT outcome, count(*) n FROM state_outcome GROUP BY 1 ORDER BY 1) s"); by class: $(q recv "SELECT string_agg(class || ' ' || a || '/' || n, ', ' ORDER BY class) FROM (SELECT class, count(*) FILTER (WHERE outcome = 'accepted') a, count(*) n FROM states JOIN state_outcome USING (i) GROUP BY class) s")"

echo "# total $(( $(date +%s) - started )) s"
finish
