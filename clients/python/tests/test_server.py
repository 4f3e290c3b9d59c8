"""Cross-checks against a running server with the cuckoo extension.

Run by test/cluster/clients.sh inside a throwaway cluster (libpq's PG* variables
select it); skipped unless PGCUCKOO_SERVER_TESTS=1.  For each value family,
N values (PGCUCKOO_PROBES, default 100,000; test/cluster/clients.sh: 25,000)
are probed here and with cuckoo_contains in SQL on filters of
every shape; filters changed here go back through the bytea cast and binary
COPY and must pass the server's validator, equal the server's own result of
the same changes and answer every probe alike; build() must equal cuckoo_agg.
Format version 2 (growing and rotated filters): the same probes on filters of
its shapes; sequences of add, add_if_absent, remove, rotate and union done
here and in SQL give the same bytes after every step (growing filters of
several capacities grown up to 100 times, rotated filters of 1 to 3
generation bits), no false negative, the same refusals with the server's
wording; the results go back through the cast and binary COPY with the same
probe answers and cuckoo_info; and the client's verdict on mutated bytes
equals the server's.
"""
import collections
import json
import math
import os
import random

import pytest

import pgcuckoo

psycopg = pytest.importorskip("psycopg")
from vectors import value

pytestmark = pytest.mark.skipif(os.environ.get("PGCUCKOO_SERVER_TESTS") != "1",
                                reason="needs a server: PGCUCKOO_SERVER_TESTS=1")

N = int(os.environ.get("PGCUCKOO_PROBES", "100000"))

# the value of row i (1 .. N) of each family, as an SQL expression
FAMILIES = {
    "int8": "(hashint8(i::bigint)::bigint << 16) # i",
    # scales 0 to 8, with and without trailing zeros
    "numeric": "round((hashint4(i)::bigint * 100000 + i)::numeric / 10::numeric ^ (i % 7), i % 7 + i % 3)",
    "text": "left(md5(i::text) || md5((-i)::text), i % 61) || CASE WHEN i % 7 = 0 THEN 'ü' ELSE '' END || to_hex(i)",
    "bytea": "int4send(i) || substring(decode(md5(i::text) || md5((3 * i)::text), 'hex') from 1 for i % 29)",
    "uuid": "md5(i::text)::uuid",
    "date": "'2000-01-01'::date + hashint4(i) % 700000",
    "timestamp": "'2000-01-01'::timestamp + hashint4(i) * interval '1 second' + (i % 999983) * interval '1 microsecond'",
    "timestamptz": "'2000-01-01 00:00+00'::timestamptz + hashint4(-i) * interval '1 second' + (i % 999983) * interval '1 microsecond'",
    "bool": "i % 2 = 0",
    "float8": "CASE WHEN i % 10000 = 0 THEN 'NaN'::float8 WHEN i % 10000 = 1 THEN '-0'::float8 "
              "WHEN i % 10000 = 2 THEN '-Infinity'::float8 ELSE hashint4(i)::float8 / (i % 97 + 1) END",
}

# name: (capacity, bucket_size, fingerprint_bits, semisort, members, fill until full)
SHAPES = {
    "b2_f8": (3000, 2, 8, False, 2000, False),
    "b2_f12_full": (100, 2, 12, False, 1000, True),
    "b4_f10": (5000, 4, 10, False, 4000, False),
    "b4_f32": (1000, 4, 32, False, 800, False),
    "b4_f5_semisort": (3000, 4, 5, True, 2500, False),
    "b4_f13_semisort_full": (200, 4, 13, True, 1000, True),
    "b4_f18_semisort": (2000, 4, 18, True, 1500, False),
    "b8_f9": (3000, 8, 9, False, 2500, False),
    "b8_f6_full": (150, 8, 6, False, 1000, True),
}


def _grow(fpr, cap=32):
    return "cuckoo_create(%d, %s, 4, NULL, 500, false, 2)" % (cap, fpr)


# format version 2: name -> (the filter as SQL, given A(lo, hi), the array of
# the family's values lo .. hi; the rows lo .. hi that are surely kept).
# Growing filters grown 8 rounds from a dozen buckets (the split pointer
# inside a round; without the address budget entries are copied when a
# split finds them out of address bits, entries > items, with it none are;
# a growing filter of 4 buckets or fewer can be left
# full with few items, its few splits not freeing the victim), rotated ones
# (keep 2: the oldest batches dropped), a rotated one filled until its victim
# slot is used.
V2_SHAPES = {
    "v2_grow_fpr01": (lambda A: "cuckoo_add_array(%s, %s)" % (_grow(0.01), A(1, 20000)), (1, 20000)),
    "v2_grow_fpr001": (lambda A: "cuckoo_add_array(%s, %s)" % (_grow(0.001), A(1, 20000)), (1, 20000)),
    "v2_grow_rotated": (lambda A: (
        "cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate("
        "cuckoo_add_array(%s, %s), 2), %s), 2), %s), 2), %s)"
        % (_grow(0.01, 100), A(1, 1000), A(1001, 2000), A(2001, 2800), A(2801, 3000))), (2001, 3000)),
    "v2_rotated_b2_f8": (lambda A: (
        "cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(cuckoo_add_array("
        "cuckoo_create(3000, 0.01, 2, 8), %s), 2), %s), 2), %s)" % (A(1, 1500), A(1501, 2500), A(2501, 2800))),
        (1501, 2800)),
    "v2_rotated_b8_f9": (lambda A: (
        "cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(cuckoo_add_array("
        "cuckoo_create(3000, 0.01, 8, 9), %s), 2), %s), 2), %s)" % (A(1, 1500), A(1501, 2500), A(2501, 2800))),
        (1501, 2800)),
    "v2_rotated_b4_f12_full": (lambda A: (
        "(xc.fill(cuckoo_rotate(cuckoo_add_array(cuckoo_create(200, 0.01, 4, 12), %s), 2), %s, true)).filt"
        % (A(1, 150), A(151, 2000))), (1, 150)),
}

SETUP = """
CREATE EXTENSION IF NOT EXISTS cuckoo;
DROP SCHEMA IF EXISTS xc CASCADE;
CREATE SCHEMA xc;
CREATE FUNCTION xc.fill(f cuckoofilter, vals anyarray, until_full bool,
                        OUT filt cuckoofilter, OUT added int)
LANGUAGE plpgsql AS $$
BEGIN
  added := 0;
  filt := f;
  FOR i IN 1 .. coalesce(array_length(vals, 1), 0) LOOP
    filt := cuckoo_add(filt, vals[i]);
    added := added + 1;
    EXIT WHEN until_full AND (cuckoo_info(filt)).is_full;
  END LOOP;
END $$;
CREATE TABLE xc.filters (fam text, shape text, f cuckoofilter, members int, PRIMARY KEY (fam, shape));
CREATE TABLE xc.back (fam text, shape text, how text, f cuckoofilter);
CREATE TABLE xc.filters2 (fam text, shape text, f cuckoofilter, lo int, hi int, PRIMARY KEY (fam, shape));
CREATE FUNCTION xc.verdict(b bytea) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM b::cuckoofilter;
  RETURN NULL;
EXCEPTION WHEN invalid_binary_representation THEN
  RETURN SQLERRM;
END $$;
"""


@pytest.fixture(scope="module")
def conn():
    with psycopg.connect("", autocommit=True) as c:
        c.execute("SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET extra_float_digits = 1")
        c.execute(SETUP)
        yield c


def text_of(fam):
    return "encode(v, 'hex')" if fam == "bytea" else "v::text"


@pytest.fixture(scope="module")
def families(conn):
    """fam -> the N Python values; the server has table xc.v_<fam> and the filters."""
    out = {}
    for fam, expr in FAMILIES.items():
        conn.execute("CREATE TABLE xc.v_%s AS SELECT i, %s AS v FROM generate_series(1, %d) i"
                     % (fam, expr, N))
        rows = conn.execute("SELECT %s FROM xc.v_%s ORDER BY i" % (text_of(fam), fam)).fetchall()
        out[fam] = [value(fam, r[0]) for r in rows]
        for shape, (cap, b, f, ss, n, full) in SHAPES.items():
            if fam == "bool" and full:
                continue      # two values cannot fill a filter
            conn.execute(
                "INSERT INTO xc.filters SELECT %%s, %%s, (r).filt, (r).added FROM "
                "(SELECT xc.fill(cuckoo_create(%d, 0.01, %d, %d, 500, %s), array_agg(v ORDER BY i), %s) r "
                " FROM xc.v_%s WHERE i <= %d) s" % (cap, b, f, ss, full, fam, n if fam != "bool" else 1),
                (fam, shape))
        for shape, (make, (lo, hi)) in V2_SHAPES.items():
            if fam == "bool":
                if shape.endswith("_full"):
                    continue      # two values cannot fill a filter
                # one value per batch: the first row of each
                lo = hi = lo
                A = (lambda a, b: "(SELECT array_agg(v) FROM xc.v_bool WHERE i = %d)" % a)
            else:
                A = (lambda a, b, fam=fam: "(SELECT array_agg(v ORDER BY i) FROM xc.v_%s WHERE i BETWEEN %d AND %d)"
                     % (fam, a, b))
            conn.execute("INSERT INTO xc.filters2 VALUES (%%s, %%s, %s, %%s, %%s)" % make(A),
                         (fam, shape, lo, hi))
    return out


def sql_answers(conn, fam, table, where):
    """cuckoo_contains of every value of the family, as a string of 0 and 1."""
    return conn.execute(
        "SELECT string_agg(CASE WHEN cuckoo_contains(f, v) THEN '1' ELSE '0' END, '' ORDER BY i) "
        "FROM %s t, xc.v_%s WHERE %s" % (table, fam, where)).fetchone()[0]


def client_answers(flt, values):
    return "".join("1" if x else "0" for x in flt.contains_many(values))


def shapes_of(conn, fam):
    return conn.execute("SELECT shape, f::bytea, members, (cuckoo_info(f)).is_full FROM xc.filters "
                        "WHERE fam = %s ORDER BY shape", (fam,)).fetchall()


@pytest.mark.parametrize("fam", list(FAMILIES))
def test_probes_agree(conn, families, fam):
    values = families[fam]
    shapes = shapes_of(conn, fam)
    assert len(shapes) == (6 if fam == "bool" else 9)
    for shape, data, members, is_full in shapes:
        flt = pgcuckoo.Filter.from_bytes(data)
        assert flt.info()["is_full"] == is_full == SHAPES[shape][5] or fam == "bool"
        mine = client_answers(flt, values)
        theirs = sql_answers(conn, fam, "xc.filters",
                             "t.fam = '%s' AND t.shape = '%s'" % (fam, shape))
        assert mine == theirs, "%s %s: %d answers differ" % (
            fam, shape, sum(a != b for a, b in zip(mine, theirs)))
        assert "0" not in mine[:members], "false negative"
        if fam != "bool":
            # values equal to a member (dates repeat) are true positives
            inside = set(values[:members])
            rest = [a for a, v in zip(mine[members:], values[members:]) if v not in inside]
            assert rest.count("1") <= 2 * flt.info()["expected_fpr"] * len(rest) + 50, \
                "implausible false-positive rate"


def send_back(conn, fam, shape, data):
    """The client's bytes into the server by the bytea cast and by binary COPY."""
    conn.execute("INSERT INTO xc.back VALUES (%s, %s, 'cast', %s::bytea::cuckoofilter)",
                 (fam, shape, data))
    with conn.cursor() as cur:
        with cur.copy("COPY xc.back (fam, shape, how, f) FROM STDIN (FORMAT BINARY)") as cp:
            cp.set_types(["text", "text", "text", "bytea"])
            cp.write_row((fam, shape, "copy", data))


@pytest.mark.parametrize("fam", list(FAMILIES))
def test_changes_go_back(conn, families, fam):
    values = families[fam]
    for shape, data, members, is_full in shapes_of(conn, fam):
        flt = pgcuckoo.Filter.from_bytes(data)
        # row numbers (0-based) of the values removed, added, added if absent
        if fam == "bool":
            removes, adds, absent = [1], [0], [0]
        elif is_full:
            # room first: removing members moves the victim back into the table
            removes, adds, absent = [0, 1, 2], [members, members + 1], []
        else:
            removes = list(range(members // 10))
            adds = list(range(N - 100, N))
            absent = list(range(members // 2, members // 2 + 50)) + list(range(N - 200, N - 150))
        def apply():
            g = flt
            for j in removes:
                g = g.remove(values[j])
            for j in adds:
                g = g.add(values[j])
            for j in absent:
                g = g.add_if_absent(values[j])
            return g

        try:
            changed = apply()
        except pgcuckoo.FilterFullError:
            # a full filter may stay full: the server must refuse the same add
            assert is_full
            with pytest.raises(psycopg.errors.ProgramLimitExceeded):
                conn.execute("SELECT cuckoo_add_array(cuckoo_remove_array(f, ARRAY(SELECT v FROM xc.v_%s "
                             "WHERE i = ANY(%%s) ORDER BY i)), ARRAY(SELECT v FROM xc.v_%s WHERE i = ANY(%%s) "
                             "ORDER BY i)) FROM xc.filters WHERE fam = %%s AND shape = %%s" % (fam, fam),
                             ([j + 1 for j in removes], [j + 1 for j in adds], fam, shape))
            adds = []
            changed = apply()
        mine = changed.to_bytes()
        assert flt.to_bytes() == data             # the original is unchanged
        conn.execute("DELETE FROM xc.back")
        send_back(conn, fam, shape, mine)
        # the server's own result of the same changes, in the same order
        arr = ("(SELECT array_agg(v ORDER BY o) FROM unnest(%s::int[]) WITH ORDINALITY u(j, o) "
               "JOIN xc.v_{0} ON i = j)").format(fam)
        same = conn.execute(
            "SELECT bool_and(b.f = cuckoo_add_if_absent_array(cuckoo_add_array(cuckoo_remove_array("
            "x.f, " + arr + "), " + arr + "), " + arr + ")), count(*), bool_and(b.f::bytea = %s) "
            "FROM xc.back b, xc.filters x WHERE x.fam = %s AND x.shape = %s",
            ([j + 1 for j in removes], [j + 1 for j in adds], [j + 1 for j in absent],
             mine, fam, shape)).fetchone()
        assert same == (True, 2, True), "%s %s: the server's changes differ" % (fam, shape)
        want = client_answers(changed, values)
        for how in ("cast", "copy"):
            got = sql_answers(conn, fam, "xc.back", "t.how = '%s'" % how)
            assert got == want, "%s %s %s" % (fam, shape, how)


@pytest.mark.parametrize("fam", list(FAMILIES))
def test_union_agrees(conn, families, fam):
    values = families[fam]
    for shape, data, members, is_full in shapes_of(conn, fam):
        if is_full or fam == "bool":
            continue
        a = pgcuckoo.Filter.from_bytes(data)
        b = pgcuckoo.Filter.from_bytes(data)
        for v in values[members:members + members // 4]:
            b.add_in_place(v)
        mine = a.union(b).to_bytes()
        theirs = conn.execute("SELECT cuckoo_union(%s::bytea::cuckoofilter, %s::bytea::cuckoofilter)::bytea",
                              (a.to_bytes(), b.to_bytes())).fetchone()[0]
        assert mine == theirs, "%s %s" % (fam, shape)


@pytest.mark.parametrize("fam,fpr,n", [
    ("int8", 0.01, N), ("text", 0.01, N), ("int8", 0.3, 20000), ("numeric", 0.001, 20000),
    ("bytea", 0.05, 20000), ("uuid", 0.0001, 20000), ("date", 0.01, 20000),
    ("timestamp", 0.01, 20000), ("timestamptz", 0.02, 20000), ("bool", 0.01, 20000),
    ("float8", 1e-6, 20000), ("text", 0.5, 3)])
def test_build_equals_cuckoo_agg(conn, families, fam, fpr, n):
    theirs = conn.execute("SELECT cuckoo_agg(v, %%s)::bytea FROM xc.v_%s WHERE i <= %d" % (fam, n),
                          (fpr,)).fetchone()[0]
    assert pgcuckoo.build(families[fam][:n], fpr).to_bytes() == theirs


def test_empty_cuckoo_agg_is_null(conn, families):
    # from 1.1 cuckoo_agg over no rows gives NULL (as under Citus, which cannot
    # pass the fpr or the value type then); build() of no values mirrors it
    theirs = conn.execute("SELECT cuckoo_agg(v, 0.001)::bytea FROM xc.v_text WHERE false").fetchone()[0]
    assert theirs is None
    assert pgcuckoo.build([], 0.001, kind="text") is None
    assert pgcuckoo.build([None]) is None


def test_hashes_agree(conn, families):
    for fam in FAMILIES:
        theirs = [r[0] for r in conn.execute(
            "SELECT cuckoo_hash(v) FROM xc.v_%s WHERE i <= 5000 ORDER BY i" % fam)]
        assert [pgcuckoo.cuckoo_hash(v) for v in families[fam][:5000]] == theirs, fam


def v2_shapes_of(conn, fam):
    return conn.execute("SELECT shape, f::bytea, lo, hi, (cuckoo_info(f)).format_version, "
                        "(cuckoo_info(f)).is_full FROM xc.filters2 WHERE fam = %s ORDER BY shape",
                        (fam,)).fetchall()


@pytest.mark.parametrize("fam", list(FAMILIES))
def test_v2_probes_agree(conn, families, fam):
    values = families[fam]
    shapes = v2_shapes_of(conn, fam)
    assert len(shapes) == (5 if fam == "bool" else 6)
    for shape, data, lo, hi, version, is_full in shapes:
        assert version == 2 and is_full == shape.endswith("_full"), shape
        if shape.startswith("v2_grow_fpr") and fam != "bool":
            grown = pgcuckoo.Filter.from_bytes(data)
            info = grown.info()
            assert info["split_pointer"] > 0, info
            # copies out of spare address bits, or none with the address
            # budget (docs/FORMAT.md 13.12)
            assert (info["entries"] == info["items"]) if grown.budget else (info["entries"] > info["items"]), info
        flt = pgcuckoo.Filter.from_bytes(data)
        assert isinstance(flt, pgcuckoo.FilterV2)
        mine = client_answers(flt, values)
        theirs = sql_answers(conn, fam, "xc.filters2", "t.fam = '%s' AND t.shape = '%s'" % (fam, shape))
        assert mine == theirs, "%s %s: %d answers differ" % (
            fam, shape, sum(a != b for a, b in zip(mine, theirs)))
        assert "0" not in mine[lo - 1:hi], "%s %s: false negative" % (fam, shape)
        if fam != "bool":
            inside = set(values[:20000])
            rest = [a for a, v in zip(mine[20000:], values[20000:]) if v not in inside]
            assert rest.count("1") <= 2 * flt.info()["expected_fpr"] * len(rest) + 50, \
                "implausible false-positive rate"
        # count as cuckoo_count, on a sample
        sample = values[lo - 1:lo + 199] + values[-200:]
        theirs = [r[0] for r in conn.execute(
            "SELECT cuckoo_count(t.f, v) FROM xc.filters2 t, xc.v_%s WHERE t.fam = %%s AND t.shape = %%s "
            "AND (i BETWEEN %d AND %d OR i > %d) ORDER BY i" % (fam, lo, lo + 199, N - 200), (fam, shape))]
        assert [flt.count(v) for v in sample] == theirs, "%s %s: counts differ" % (fam, shape)


def server_error(e):
    """A server error as pgcuckoo words it: the message, then the detail
    (its first letter lower-case, without the final full stop)."""
    msg, detail = e.diag.message_primary, e.diag.message_detail
    if detail:
        msg += ": " + detail[0].lower() + detail[1:].rstrip(".")
    return msg


def check_back(conn, fam, label, flt, values):
    """flt's bytes through the bytea cast and binary COPY: accepted, equal,
    every probe of values (and cuckoo_info) as the client answers it."""
    conn.execute("DELETE FROM xc.back")
    send_back(conn, fam, label, flt.to_bytes())
    got = conn.execute("SELECT how, f::bytea = %s, to_json(cuckoo_info(f))::text FROM xc.back ORDER BY how",
                       (flt.to_bytes(),)).fetchall()
    assert [(how, same) for how, same, _ in got] == [("cast", True), ("copy", True)], label
    info = json.loads(got[0][2])
    mine = flt.info()
    for key in info:
        if isinstance(mine[key], float):
            assert math.isclose(info[key], mine[key], rel_tol=1e-12), (label, key)
        else:
            assert info[key] == mine[key], (label, key)
    conn.execute("DROP TABLE IF EXISTS xc.probe")
    conn.execute("CREATE TABLE xc.probe (i int, v %s)" % ("bigint" if fam == "int8" else "text"))
    with conn.cursor() as cur:
        with cur.copy("COPY xc.probe (i, v) FROM STDIN") as cp:
            for i, v in enumerate(values):
                cp.write_row((i, v))
    for how in ("cast", "copy"):
        theirs = conn.execute(
            "SELECT string_agg(CASE WHEN cuckoo_contains(b.f, p.v) THEN '1' ELSE '0' END, '' ORDER BY p.i) "
            "FROM xc.back b, xc.probe p WHERE b.how = %s", (how,)).fetchone()[0]
        assert theirs == client_answers(flt, values), (label, how)


class Live:
    """The values a filter must report (no false negative): per kept generation,
    the adds not yet removed; remove takes the oldest add (the raise rule)."""

    def __init__(self):
        self.gens = [collections.Counter()]          # oldest first

    def add(self, v):
        self.gens[-1][v] += 1

    def add_if_absent(self, v, reported):
        # reported: the filter reported v before (a false positive stores nothing)
        n = sum(g[v] for g in self.gens)
        for g in self.gens:
            g.pop(v, None)
        if n or not reported:
            self.gens[-1][v] = max(n, 1)

    def count(self, v):
        return sum(g[v] for g in self.gens)

    def remove(self, v):
        for g in self.gens:
            if g[v] > 0:
                g[v] -= 1
                return

    def rotate(self, keep):
        self.gens = self.gens[len(self.gens) - keep + 1:] + [collections.Counter()] if keep > 1 \
            else [collections.Counter()]

    def members(self):
        out = collections.Counter()
        for g in self.gens:
            out.update(g)
        return {v for v, n in out.items() if n > 0}


def run_both(conn, fam, start, steps, label, members=()):
    """Applies steps ((op, values) or ("rotate", keep) or ("union", bytes),
    ("union_into", bytes): the other filter first) here and in SQL; the bytes
    must be equal after every step, as must the refusals.  Returns the client's
    filter and the refusals' messages."""
    typ = "bigint" if fam == "int8" else "text"
    mine = pgcuckoo.Filter.from_bytes(start)
    theirs = start
    live = Live()
    for v in members:           # the start filter's own members
        live.add(v)
    refused = []
    for n, (op, arg) in enumerate(steps):
        err_s = err_m = None
        before = mine
        if op == "remove":
            # only members are removed (removing a value never added may take
            # another value's entry: a false negative the user caused)
            left = collections.Counter({v: live.count(v) for v in set(arg)})
            arg = [v for v in arg if left[v] > 0 and not left.subtract([v])]
        try:
            if op == "rotate":
                theirs2 = conn.execute("SELECT cuckoo_rotate(%s::bytea::cuckoofilter, %s)::bytea",
                                       (theirs, arg)).fetchone()[0]
            elif op in ("union", "union_into"):
                a, b = (theirs, arg) if op == "union" else (arg, theirs)
                theirs2 = conn.execute("SELECT cuckoo_union(%s::bytea::cuckoofilter, %s::bytea::cuckoofilter)::bytea",
                                       (a, b)).fetchone()[0]
            else:
                theirs2 = conn.execute("SELECT cuckoo_%s_array(%%s::bytea::cuckoofilter, %%s::%s[])::bytea"
                                       % (op, typ), (theirs, arg)).fetchone()[0]
        except psycopg.errors.Error as e:
            err_s = server_error(e)
        try:
            if op == "rotate":
                mine2 = mine.rotate(arg)
            elif op == "union":
                mine2 = mine.union(pgcuckoo.Filter.from_bytes(arg))
            elif op == "union_into":
                mine2 = pgcuckoo.Filter.from_bytes(arg).union(mine)
            else:
                mine2 = mine
                reported = []
                for v in arg:
                    reported.append(mine2.contains(v))
                    mine2 = getattr(mine2, op)(v)
        except ValueError as e:
            err_m = str(e)
        assert err_m == err_s, "%s step %d (%s): the refusals differ" % (label, n, op)
        assert before.to_bytes() == (theirs if n else start)        # unchanged by the call
        if err_s is not None:
            refused.append(err_s)
            continue
        assert mine2.to_bytes() == theirs2, "%s step %d (%s): the bytes differ" % (label, n, op)
        mine, theirs = mine2, theirs2
        if op == "rotate":
            live.rotate(arg)
        elif op == "add_if_absent":
            for v, rep in zip(arg, reported):
                live.add_if_absent(v, rep)
        elif op not in ("union", "union_into"):
            for v in arg:
                getattr(live, op)(v)
        missing = [v for v in live.members() if not mine.contains(v)]
        assert not missing, "%s step %d (%s): false negatives %r" % (label, n, op, missing[:5])
    return mine, refused


def values_of(fam, lo, hi):
    return list(range(lo, hi)) if fam == "int8" else ["v%d" % i for i in range(lo, hi)]


def grow_steps(fam, cap, n, rng):
    """Adds of n values (a growing filter of capacity cap grows n / cap
    times), removes of a third of them, add_if_absent of old and new values,
    repeated adds, and unions with a filter of the same creation."""
    vals = values_of(fam, 1, n + 1)
    steps = [("add", vals[:n // 2]), ("add_if_absent", vals[n // 4:n]), ("remove", vals[::3]),
             ("add", vals[::7]), ("add_if_absent", vals[::5] + values_of(fam, n + 1, n + 1 + n // 10)),
             ("remove", vals[1::3][:n // 6])]
    return steps


GROW_CASES = [(cap, fpr, mult) for fpr in (0.01, 0.001) for cap, mult in ((1, 100), (10, 100), (100, 30), (1000, 4))]


@pytest.mark.parametrize("fam", ["int8", "text"])
@pytest.mark.parametrize("cap,fpr,mult", GROW_CASES)
def test_v2_growing_changes_agree(conn, fam, cap, fpr, mult):
    """Growing filters changed here and in SQL: the same bytes at every step."""
    rng = random.Random(cap * 7 + mult)
    label = "grow cap %d fpr %s x%d %s" % (cap, fpr, mult, fam)
    start = conn.execute("SELECT cuckoo_create(%s, %s, expansion => 2)::bytea", (cap, fpr)).fetchone()[0]
    n = cap * mult
    steps = grow_steps(fam, cap, n, rng)
    # a sibling of the same creation, grown over other values and part of ours
    sib = pgcuckoo.Filter.from_bytes(start)
    for v in values_of(fam, n // 2, n // 2 + n // 3) + values_of(fam, 10 * n, 10 * n + n // 2):
        sib.add_in_place(v)
    steps += [("union", sib.to_bytes()), ("union_into", sib.to_bytes()), ("remove", values_of(fam, 1, 1 + n // 8))]
    flt, live = run_both(conn, fam, start, steps, label)
    info = flt.info()
    assert info["growth_rounds"] >= (3 if mult >= 30 else 1), info
    probes = values_of(fam, 1, 2 * n) + values_of(fam, 10 * n, 10 * n + n) + values_of(fam, 50 * n, 50 * n + 3000)
    check_back(conn, fam, label, flt, probes)


ROTATE_CASES = [
    # (label, the start filter, keeps of successive rotations)
    ("fixed b4 f12", "cuckoo_create(2000, 0.01, 4, 12)", (1, 2, 2, 3, 1)),
    ("fixed b2 f8", "cuckoo_create(2000, 0.01, 2, 8)", (2, 3, 3, 3)),
    ("fixed b8 f9", "cuckoo_create(2000, 0.01, 8, 9)", (3, 2, 7, 4)),
    ("fixed semisort", "cuckoo_create(2000, 0.01, 4, 9, 500, true)", (2, 2)),
    ("growing", "cuckoo_create(50, 0.01, expansion => 2)", (2, 3, 1, 3, 3)),
    ("growing fpr 0.001", "cuckoo_create(30, 0.001, expansion => 2)", (1, 2, 3, 5)),
]


@pytest.mark.parametrize("fam", ["int8", "text"])
@pytest.mark.parametrize("label,make,keeps", ROTATE_CASES, ids=[c[0] for c in ROTATE_CASES])
def test_v2_rotated_changes_agree(conn, fam, label, make, keeps):
    """Rotated filters (g = 1 .. 3): rotations, adds, add_if_absent of values of
    older generations (moved to the current one), removes (the raise rule) and
    unions of filters rotated in step, here and in SQL: the same bytes."""
    label = "%s %s" % (label, fam)
    start = conn.execute("SELECT %s::bytea" % make).fetchone()[0]
    steps = []
    lo = 1
    for r, keep in enumerate(keeps):
        batch = values_of(fam, lo, lo + 300)
        old = values_of(fam, max(1, lo - 450), lo)
        steps += [("add", batch), ("add_if_absent", old[::2] + batch[::4]), ("remove", batch[::5] + old[1::6]),
                  ("add", batch[:40]), ("rotate", keep)]
        lo += 300
    steps += [("add", values_of(fam, lo, lo + 200))]
    flt0, _ = run_both(conn, fam, start, steps, label)
    # a sibling rotated in step (the same rotations from the same start), then unions
    sib = pgcuckoo.Filter.from_bytes(start)
    for r, keep in enumerate(keeps):
        for v in values_of(fam, 100000 + 200 * r, 100000 + 200 * r + 150):
            sib.add_in_place(v)
        sib = sib.rotate(keep)
    more = [("union", sib.to_bytes()), ("union_into", sib.to_bytes()), ("remove", values_of(fam, lo, lo + 50))]
    flt, _ = run_both(conn, fam, flt0.to_bytes(), more, label + " unions")
    assert flt.info()["generation_bits"] >= 1 and flt.info()["keep"] == keeps[-1]
    check_back(conn, fam, label, flt, values_of(fam, 1, lo + 400) + values_of(fam, 100000, 101000)
               + values_of(fam, 900000, 905000))


def test_v2_refusals_agree(conn):
    """The server's refusals, raised here with its wording (ValueError)."""
    g100 = conn.execute("SELECT cuckoo_create(100, 0.01, expansion => 2)::bytea").fetchone()[0]
    g101 = conn.execute("SELECT cuckoo_create(101, 0.01, expansion => 2)::bytea").fetchone()[0]
    rot = conn.execute("SELECT cuckoo_rotate(cuckoo_create(100, 0.01, expansion => 2), 2)::bytea").fetchone()[0]
    fix = conn.execute("SELECT cuckoo_rotate(cuckoo_create(60, 0.01, 4, 12), 2)::bytea").fetchone()[0]
    v1 = conn.execute("SELECT cuckoo_create(60, 0.01, 4, 12)::bytea").fetchone()[0]
    # too many copies, a full fixed filter, a growing filter that cannot place its victim
    _, refused = run_both(conn, "int8", g100, [("add", [7])] * 12, "copies growing")
    assert refused and all(r.startswith("value was added to the cuckoo filter too many times") for r in refused)
    _, refused = run_both(conn, "int8", fix, [("add", [5])] * 12, "copies fixed")
    assert refused and all(r.startswith("value was added to the cuckoo filter too many times") for r in refused)
    f, refused = run_both(conn, "int8", fix, [("add", [v]) for v in range(1, 400)], "full fixed")
    assert f.info()["is_full"] and refused and all(r.startswith("cuckoo filter is full: ") for r in refused)
    f, refused = run_both(conn, "int8", f.to_bytes(), [("remove", [v]) for v in range(1, 60)]
                          + [("add_if_absent", [v]) for v in range(400, 600)], "full fixed, then removes")
    # a version-1 filter with its victim slot in use, rotated (the victim moves with its bucket)
    full1 = pgcuckoo.Filter.from_bytes(v1)
    members = []
    try:
        for v in range(1, 1000):
            full1.add_in_place(v)
            members.append(v)
    except pgcuckoo.FilterFullError:
        pass
    assert full1.victim_used
    f, refused = run_both(conn, "int8", full1.to_bytes(), [("rotate", 2), ("add", [members[0]]),
                                                           ("remove", members[:3]), ("add", [5000]), ("rotate", 1)],
                          "version 1 full, rotated", members)
    assert refused and f.info()["generation_bits"] == 2
    tiny = conn.execute("SELECT cuckoo_create(1, 0.3, 4, NULL, 500, false, 2)::bytea").fetchone()[0]
    f, refused = run_both(conn, "int8", tiny, [("add", [v]) for v in range(1, 1200)], "tiny growing")
    assert f.info()["growth_rounds"] >= 5
    # unions: other creation, not rotated in step, version 1 with version 2 (either order)
    for a, b in ((g100, g101), (g100, rot), (rot, g100), (fix, v1), (v1, fix), (v1, g100), (g100, fix)):
        with pytest.raises(psycopg.errors.Error) as e:
            conn.execute("SELECT cuckoo_union(%s::bytea::cuckoofilter, %s::bytea::cuckoofilter)", (a, b))
        with pytest.raises(ValueError) as m:
            pgcuckoo.Filter.from_bytes(a).union(pgcuckoo.Filter.from_bytes(b))
        assert str(m.value) == server_error(e.value)
    # a union that does not fit a fixed (rotated) filter
    fa = conn.execute("SELECT cuckoo_add_array(%s::bytea::cuckoofilter, ARRAY(SELECT generate_series(1, 50)::bigint))::bytea",
                      (fix,)).fetchone()[0]
    fb = conn.execute("SELECT cuckoo_add_array(%s::bytea::cuckoofilter, ARRAY(SELECT generate_series(1000, 1050)::bigint))::bytea",
                      (fix,)).fetchone()[0]
    _, refused = run_both(conn, "int8", fa, [("union", fb)], "union full")
    assert refused == ["the union does not fit in a cuckoo filter of this shape: the filter has 20 buckets of 4 entries"]
    # rotate: keep out of range, too many tag bits for the slot
    for data, keep in ((rot, 0), (rot, 256), (conn.execute("SELECT cuckoo_create(10, 1e-9, 4, 28)::bytea").fetchone()[0], 40)):
        with pytest.raises(psycopg.errors.Error) as e:
            conn.execute("SELECT cuckoo_rotate(%s::bytea::cuckoofilter, %s)", (data, keep))
        with pytest.raises(ValueError) as m:
            pgcuckoo.Filter.from_bytes(data).rotate(keep)
        assert str(m.value) == server_error(e.value)


@pytest.mark.parametrize("fam", ["int8", "text", "bool"])
def test_v2_changes_go_back(conn, families, fam):
    """The version-2 filters of V2_SHAPES changed here as in SQL (removes of
    kept members, adds, add_if_absent, a union with itself): equal bytes,
    accepted through the cast and binary COPY, the same probe answers."""
    values = families[fam]
    for shape, data, lo, hi, version, is_full in v2_shapes_of(conn, fam):
        flt = pgcuckoo.Filter.from_bytes(data)
        if fam == "bool":
            removes, adds, absent = [lo - 1], [1], [0, 1]
        elif is_full:
            # room first: the removes put the victim back into the table
            removes, adds, absent = [lo - 1, lo, lo + 1, lo + 2], [N - 1], [lo + 3, N - 1]
        else:
            removes = list(range(lo - 1, lo - 1 + (hi - lo) // 10))
            adds = list(range(N - 300, N - 100))
            absent = list(range(lo - 1, lo + 50)) + list(range(N - 150, N - 50))
        changed = flt
        for j in removes:
            changed = changed.remove(values[j])
        for j in adds:
            changed = changed.add(values[j])
        for j in absent:
            changed = changed.add_if_absent(values[j])
        if not is_full:
            changed = changed.union(flt)        # (a full filter has no room for the removed ones)
        mine = changed.to_bytes()
        assert flt.to_bytes() == data
        conn.execute("DELETE FROM xc.back")
        send_back(conn, fam, shape, mine)
        arr = ("(SELECT array_agg(v ORDER BY o) FROM unnest(%s::int[]) WITH ORDINALITY u(j, o) "
               "JOIN xc.v_{0} ON i = j)").format(fam)
        same = conn.execute(
            "SELECT bool_and(b.f = " + ("" if is_full else "cuckoo_union(") + "cuckoo_add_if_absent_array("
            "cuckoo_add_array(cuckoo_remove_array(x.f, " + arr + "), " + arr + "), " + arr + ")"
            + ("" if is_full else ", x.f)") + "), count(*), bool_and(b.f::bytea = %s) "
            "FROM xc.back b, xc.filters2 x WHERE x.fam = %s AND x.shape = %s",
            ([j + 1 for j in removes], [j + 1 for j in adds], [j + 1 for j in absent],
             mine, fam, shape)).fetchone()
        assert same == (True, 2, True), "%s %s: the server's changes differ" % (fam, shape)
        want = client_answers(changed, values)
        for how in ("cast", "copy"):
            got = sql_answers(conn, fam, "xc.back", "t.how = '%s'" % how)
            assert got == want, "%s %s %s" % (fam, shape, how)
        kept = set(range(lo - 1, hi)) - set(removes)
        assert all(want[j] == "1" for j in kept | set(adds) | set(absent)), "%s %s: false negative" % (fam, shape)
        assert pgcuckoo.Filter.from_text(changed.to_text()) == changed


def mutations(rng, data, n):
    """n mutated copies of a version-2 filter's bytes, most in the header."""
    hdr = 64 + ((8 << data[11]) if data[11] else 0)
    out = []
    for _ in range(n):
        b = bytearray(data)
        how = rng.randrange(6)
        if how == 0:                        # one header bit
            o = rng.randrange(hdr)
            b[o] ^= 1 << rng.randrange(8)
        elif how == 1:                      # one header byte, any value
            b[rng.randrange(hdr)] = rng.randrange(256)
        elif how == 2:                      # a small change of a header field
            o = rng.choice([5, 6, 7, 10, 11, 16, 24, 32, 40, 44, 48, 50, 51, 52, 56] + list(range(64, hdr, 8)))
            b[o] = (b[o] + rng.choice([-2, -1, 1, 2])) & 0xFF
        elif how == 3:                      # one table bit (a slot's fingerprint, tail or generation)
            o = rng.randrange(hdr, len(b))
            b[o] ^= 1 << rng.randrange(8)
        elif how == 4:                      # a table byte, zeroed or set
            b[rng.randrange(hdr, len(b))] = rng.choice([0, 0xFF, rng.randrange(256)])
        else:                               # length
            b = b[:rng.randrange(len(b))] if rng.random() < 0.5 else b + bytes(rng.randrange(1, 9))
        out.append(bytes(b))
    return out


def test_v2_mutations_verdicts_agree(conn, families):
    rng = random.Random(20261125)
    cases = []
    for shape, data, lo, hi, version, is_full in v2_shapes_of(conn, "int8"):
        cases += mutations(rng, data, 60)
    theirs = [r[0] for r in conn.execute(
        "SELECT xc.verdict(b) FROM unnest(%s::bytea[]) WITH ORDINALITY u(b, o) ORDER BY o", (cases,))]
    rejected = 0
    for data, verdict in zip(cases, theirs):
        try:
            pgcuckoo.Filter.from_bytes(data)
            mine = None
        except ValueError as e:
            mine = str(e).replace("this library", "this build")
            rejected += 1
        assert mine == verdict, data.hex()[:200]
    assert len(cases) == 360 and 150 < rejected < 360


@pytest.mark.parametrize("fam,expr,py", [
    ("int8", "i::int8 * 7919", lambda i: i * 7919),
    ("text", "md5(i::text)", lambda i: __import__("hashlib").md5(str(i).encode()).hexdigest()),
])
def test_store_probes_agree(conn, fam, expr, py):
    """A stored filter (1.3) read from its rows answers as cuckoo_store_contains."""
    conn.execute("DROP TABLE IF EXISTS xc.store_%s" % fam)
    conn.execute("SELECT cuckoo_store_create('xc.store_%s', 20000)" % fam)
    conn.execute("SELECT cuckoo_store_add_array('xc.store_%s', ARRAY(SELECT %s FROM generate_series(1, 20000) i))"
                 % (fam, expr))
    st = pgcuckoo.Store(conn.execute("SELECT segment, f::bytea FROM cuckoo_store_segments('xc.store_%s')" % fam).fetchall())
    # the chunk rows themselves (1.6), put together by the client: the same filters
    chunked = pgcuckoo.Store.from_chunks(conn.execute("SELECT segment, chunk, bytes FROM xc.store_%s" % fam).fetchall())
    assert [f.to_bytes() for f in chunked._segs] == [f.to_bytes() for f in st._segs]
    srv = conn.execute(
        "SELECT string_agg(CASE WHEN cuckoo_store_contains('xc.store_%s', %s) THEN '1' ELSE '0' END, '' ORDER BY i) "
        "FROM generate_series(1, 40000) i" % (fam, expr)).fetchone()[0]
    mine = "".join("1" if x else "0" for x in st.contains_many([py(i) for i in range(1, 40001)]))
    assert mine == srv
    assert mine[:20000] == "1" * 20000
    # the segment the client routes value 1 to holds it on the server
    assert conn.execute("SELECT cuckoo_contains(f, q.v) FROM cuckoo_store_segments('xc.store_%s'), (SELECT %s AS v FROM (SELECT 1 AS i) o) q "
                        "WHERE segment = %%s" % (fam, expr), (st.segment_of(py(1)),)).fetchone()[0]
