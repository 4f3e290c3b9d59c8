"""pgcuckoo's own behaviour: value mapping, immutability, errors."""
import datetime
import decimal
import uuid

import pytest

import pgcuckoo
from pgcuckoo import Filter, FilterFullError, build, create_growing, cuckoo_hash


def test_numeric_scale_is_insignificant():
    D = decimal.Decimal
    assert cuckoo_hash(D("1.0")) == cuckoo_hash(D("1.00")) == cuckoo_hash(D("1"))
    assert cuckoo_hash(D("1E+2")) == cuckoo_hash(D("100"))
    assert cuckoo_hash(D("-0.0")) == cuckoo_hash(D("0"))
    assert cuckoo_hash(D("1.5")) != cuckoo_hash(D("15"))
    # numeric is hashed as its text, an integer as int64: different kinds
    assert cuckoo_hash(D("1")) != cuckoo_hash(1)


def test_kinds_are_distinct():
    f = build([1, 2, 3])
    assert f.contains(1)
    with pytest.raises(TypeError):
        f.contains("1")
    with pytest.raises(TypeError):
        f.contains(True)          # bool is its own kind in SQL, not an integer
    with pytest.raises(TypeError):
        f.add(1.0)
    with pytest.raises(TypeError):
        cuckoo_hash(object())
    with pytest.raises(ValueError):
        cuckoo_hash(1 << 63)      # outside bigint: numeric in SQL


def test_float_rules():
    assert cuckoo_hash(-0.0) == cuckoo_hash(0.0)
    assert cuckoo_hash(float("nan")) == cuckoo_hash(-float("nan"))
    assert cuckoo_hash(1.0) != cuckoo_hash(1)


def test_datetimes():
    utc = datetime.timezone.utc
    plus2 = datetime.timezone(datetime.timedelta(hours=2))
    a = datetime.datetime(2024, 5, 6, 9, 8, 9, 123456, tzinfo=plus2)
    b = datetime.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=utc)
    assert cuckoo_hash(a) == cuckoo_hash(b)                  # the same instant
    naive = datetime.datetime(2024, 5, 6, 7, 8, 9, 123456)
    f = build([b])
    assert f.contains(a) and f.info()["value_type"] == "timestamptz"
    with pytest.raises(TypeError):
        f.contains(naive)                                   # timestamp, not timestamptz
    assert build([naive]).info()["value_type"] == "timestamp"
    assert build([datetime.date(2000, 1, 1)]).info()["value_type"] == "date"


def test_uuid_and_bytes():
    u = uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")
    assert cuckoo_hash(u) == cuckoo_hash(u.bytes)            # same bytes (different kinds)
    f = build([u])
    assert f.contains(u)
    with pytest.raises(TypeError):
        f.contains(u.bytes)
    assert build([b"ab", bytearray(b"cd")]).contains(memoryview(b"cd"))


def test_changes_return_new_filters():
    f = build(range(100))
    text = f.to_text()
    g = f.add(1000)
    assert f.to_text() == text and not f.contains(1000) and g.contains(1000)
    h = g.remove(1000)
    assert g.contains(1000) and g.count(1000) == 1
    assert h.items == f.items
    assert f.add_if_absent(5) == f.add_if_absent(5)
    assert f.add_if_absent(5).items == f.items


def test_in_place():
    f = build(range(10))
    assert f.add_if_absent_in_place(500) is True
    assert f.add_if_absent_in_place(500) is False
    f.add_in_place(500)
    assert f.count(500) == 2
    assert f.remove_in_place(500) and f.remove_in_place(500)
    assert not f.remove_in_place(500)
    assert not f.contains(500)


def test_build_of_no_values_is_none():
    # cuckoo_agg over no rows is NULL: build mirrors it
    assert build([]) is None
    assert build([None, None], 0.001) is None
    assert build(iter(()), kind="text") is None
    with pytest.raises(TypeError):
        build([1, None], kind="text")          # kind: what every value must be
    assert build([None, "a"], kind="text").contains("a")


def test_empty_filter_takes_first_kind():
    # an empty filter of kind "any" (as cuckoo_create makes) takes the kind of its first value
    anyf = Filter._new(1, 4, 8)
    assert anyf.info()["value_type"] == "any" and not anyf.contains("a")
    g = anyf.add("x")
    assert g.info()["value_type"] == "text" and g.contains("x")
    assert anyf.remove("x") == anyf


def test_full_filter_raises_and_keeps_bytes():
    f = build(range(8))        # sized to its data: no room to spare
    n = 0
    with pytest.raises(FilterFullError):
        while True:
            f = f.add(10000 + n)
            n += 1
    assert f.info()["is_full"] and f.contains(10000 + n - 1)
    before = f.to_bytes()
    with pytest.raises(FilterFullError):
        f.add_in_place(99999)
    assert f.to_bytes() == before
    for i in range(n):
        assert f.contains(10000 + i)


def test_too_many_copies():
    f = build([7])                       # one bucket of 4: both candidates are bucket 0
    assert f.info()["buckets"] == 1
    for _ in range(3):
        f = f.add(7)
    with pytest.raises(FilterFullError, match="too many times"):
        f.add(7)
    assert f.count(7) == 4



def test_second_copies_one_fingerprint():
    # 1, 300, 2228, 3734 and 7364 share a fingerprint and a bucket pair of a
    # growing filter of 20 buckets: twice each is ten entries for eight slots
    # (docs/FORMAT.md 13.7 step 4; sql/store_duplicates.sql)
    f = create_growing(60)
    vals = [1, 300, 2228, 3734, 7364]
    for v in vals * 2:
        f.add_in_place(v)
    assert f.info()["buckets"] > 20
    assert [f.count(v) for v in vals] == [2] * 5
    g = create_growing(60)
    for _ in range(8):
        g.add_in_place(5)
    before = g.to_bytes()
    with pytest.raises(FilterFullError, match="too many times"):
        g.add_in_place(5)
    assert g.to_bytes() == before

def test_union_errors():
    a, b = build(range(10)), build(range(1000))
    with pytest.raises(ValueError):
        a.union(b)
    with pytest.raises(TypeError):
        a.union(build([str(i) for i in range(10)]))
    u = a.union(a)
    assert u == a                          # multiset union: nothing added twice


@pytest.mark.parametrize("bad", ["", "abc", "Q0tPTw==", " " + build([1]).to_text(),
                                 build([1]).to_text() + "\n", "Q0tP\u00e9w=="])
def test_from_text_rejects(bad):
    with pytest.raises(ValueError):
        Filter.from_text(bad)


def test_from_bytes_types():
    f = build([1])
    assert Filter.from_bytes(bytearray(f.to_bytes())) == f
    assert Filter.from_bytes(memoryview(f.to_bytes())) == f
    with pytest.raises(TypeError):
        Filter.from_bytes(f.to_text())
    with pytest.raises(ValueError):
        build([1], fpr=0)
    with pytest.raises(ValueError):
        build([1], fpr=1.5)


def test_build_sizes_like_cuckoo_agg():
    f = build(range(100000), 0.01)
    info = f.info()
    assert info["items"] == 100000 and info["fingerprint_bits"] == 10
    assert 0.9 < info["load_factor"] <= 0.95
    assert all(f.contains(i) for i in range(0, 100000, 7))
    assert pgcuckoo.agg_fp_bits(0.01) == 10


def test_contains_many_agrees():
    f = build(range(0, 20000, 2))
    vals = list(range(-100, 20100))
    assert f.contains_many(vals) == [f.contains(v) for v in vals]
    assert sum(f.contains_many(range(0, 20000, 2))) == 10000
    ss = Filter.from_text(build(range(50)).to_text())
    assert ss.contains_many(vals[:500]) == [ss.contains(v) for v in vals[:500]]


@pytest.mark.parametrize("b,f", [(2, 4), (2, 9), (2, 16), (4, 4), (4, 8), (4, 9), (4, 10),
                                 (4, 12), (4, 13), (4, 14), (4, 15), (8, 4), (8, 7)])
def test_integer_fast_path_agrees(b, f):
    # integer filters of common shapes answer through their own contains
    # (_make_int_probe); it must agree with the general path everywhere,
    # full filters with the victim slot used included
    flt = Filter._new(37 if b != 8 else 5, b, f, kind=1)
    fast = ("contains" in vars(flt))
    assert fast == (b * f + 7 <= 64 and f <= 14)
    n = 0
    try:
        while True:
            flt.add_in_place(n * 7919)
            n += 1
    except FilterFullError:
        pass
    assert flt.victim_used
    for v in range(-2000, 60000, 3):
        assert flt.contains(v) == Filter.contains(flt, v), v
    for i in range(n):
        assert flt.contains(i * 7919)
    for v in (1 << 63, -(1 << 63) - 1):
        with pytest.raises(ValueError):
            flt.contains(v)
    with pytest.raises(TypeError):
        flt.contains("x")
    with pytest.raises(TypeError):
        flt.contains(True)                 # a bool is not an integer here, as in SQL
    # removing the items in place: the same object's fast path sees it
    for i in range(n):
        assert flt.remove_in_place(i * 7919)
    assert not any(flt.contains(i * 7919) for i in range(n))


def _v2_filters():
    """Version-2 integer filters of several shapes: growing (narrow buckets,
    split pointer inside a round), rotated from version 1 with b = 2, 4, 8 and
    f up to 16 (wide buckets, no alternate-bucket table), one full."""
    from vectors import load
    out = []
    for vec in load("filters")["filters"]:
        if vec["info"]["format_version"] == 2 and vec["type"] == "int8":
            out.append((vec["name"], Filter.from_text(vec["text"])))
    for b, f in ((2, 9), (4, 10), (4, 15), (4, 16), (8, 6), (8, 7)):
        flt = Filter._new(40 if b != 8 else 12, b, f, kind=1)
        for n in range(int(flt.m * b * 0.8)):
            flt.add_in_place(n * 7919)
        out.append(("rotated b%d f%d" % (b, f), flt.rotate(2)))
    # more buckets than the list of bucket words takes (the 64-bit-load path)
    big = build(range(70000), 0.01)
    assert big.m > 1 << 14
    out.append(("rotated big", big.rotate(3)))          # buckets of 48 bits: on bytes
    out.append(("rotated big g1", big.rotate(1)))       # 44 bits: at bit offsets 0 and 4
    return out


_V2_FILTERS = _v2_filters()


@pytest.mark.parametrize("name,flt", _V2_FILTERS, ids=[n for n, _ in _V2_FILTERS])
def test_v2_integer_fast_path_agrees(name, flt):
    # a version-2 integer filter's own contains agrees with the general path,
    # before and after changes (it is made anew after each)
    from pgcuckoo import FilterV2
    assert "contains" in vars(flt)
    for step in range(3):
        for v in range(-3000, 40000, 7):
            assert flt.contains(v) == FilterV2.contains(flt, v), (step, v)
        assert flt.contains_many(range(-50, 50)) == [FilterV2.contains(flt, v) for v in range(-50, 50)]
        if step == 0:
            try:
                for n in range(300):
                    flt.add_if_absent_in_place(10 ** 6 + n)
            except FilterFullError:
                pass
        elif step == 1:
            for n in range(0, 300, 2):
                flt.remove_in_place(10 ** 6 + n)
    with pytest.raises(TypeError):
        flt.contains("x")
    with pytest.raises(ValueError):
        flt.contains(1 << 63)


def test_v2_changes_in_place_and_errors():
    from vectors import load
    vec = [v for v in load("filters")["filters"] if v["name"] == "v2_rotated_b2_f12_full"][0]
    full = Filter.from_text(vec["text"])
    assert full.victim_used
    before = full.to_bytes()
    with pytest.raises(FilterFullError) as e:
        full.add_in_place(10 ** 9)
    assert isinstance(e.value, ValueError) and str(e.value).startswith("cuckoo filter is full: it holds ")
    assert full.to_bytes() == before                          # unchanged by the failed change
    with pytest.raises(FilterFullError):
        full.add(10 ** 9)
    assert full.to_bytes() == before
    with pytest.raises(TypeError):
        full.add("text")
    # removes make room: the victim goes back into the table
    m = int(vec["members"][0])
    assert full.remove_in_place(m) and not full.victim_used
    assert Filter.from_bytes(full.to_bytes()) == full
    # too many copies of one value
    grow = Filter.from_text([v for v in load("filters")["filters"] if v["name"] == "v2_grow_empty"][0]["text"])
    g = grow
    with pytest.raises(FilterFullError, match="too many times"):
        for _ in range(20):
            g = g.add(5)
    assert g.count(5) == 8 and grow.info()["items"] == 0
    # unions: not created alike, not rotated in step
    with pytest.raises(ValueError, match="of different shapes: the first is growing"):
        grow.union(full)
    with pytest.raises(ValueError, match="not rotated in step: the first was never rotated; the second is in "
                                         "generation 1 of 1-bit tags, rotated last with keep 1"):
        grow.union(grow.rotate(1))
    with pytest.raises(ValueError, match="keep must be between 1 and 255"):
        grow.rotate(0)


def test_v2_rotate_of_version1():
    # bench.py's hand-made rotation (13.8, a version-1 filter without victim)
    # equals rotate(2)
    import importlib.util
    import os
    spec = importlib.util.spec_from_file_location(
        "bench", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench.py"))
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    f = build(range(3000), 0.01)
    r = f.rotate(2)
    assert r == bench.rotated_copy(f)
    assert r.info()["generation"] == 1 and r.info()["generation_items"] == [0, 3000]
    assert all(r.contains(v) for v in range(3000))
    dropped = r.rotate(1)
    assert dropped.info()["generation_items"] == [0] and dropped.info()["entries"] == 0


def test_v2_growing_filter_full_at_the_size_limit(monkeypatch):
    # a growing filter stops splitting at the size limit (805,240,832 bytes;
    # lowered here) and then refuses adds as full, unchanged, as the server does
    from pgcuckoo import _v2
    from vectors import load
    vec = [v for v in load("filters")["filters"] if v["name"] == "v2_grow_empty"][0]
    flt = Filter.from_text(vec["text"])
    limit = _v2.total_bytes_2(flt.m + 40, flt.b, flt.w, flt.g)
    monkeypatch.setattr(_v2, "MAX_BYTES", limit)
    added = []
    with pytest.raises(FilterFullError, match="^cuckoo filter is full: it holds "):
        for n in range(100000):
            before = flt.to_bytes()
            flt.add_in_place(n * 31337)
            added.append(n * 31337)
    assert flt.to_bytes() == before and len(before) <= limit
    assert flt.m > flt.info()["initial_buckets"] and all(flt.contains(v) for v in added)
    monkeypatch.undo()
    assert Filter.from_bytes(flt.to_bytes()) == flt


def test_store_routing_and_probes():
    # docs/FORMAT.md section 14's example: cuckoo_hash(42::int8) in 1024 segments
    assert cuckoo_hash(42) == -3051478158665635896
    assert pgcuckoo.store_segment(cuckoo_hash(42), 1024) == 185
    assert pgcuckoo.store_segment(cuckoo_hash(42), 1) == 0
    with pytest.raises(ValueError):
        pgcuckoo.store_segment(1, 0)
    # a store of 4 segments built here: every value found, in its own segment
    values = list(range(1, 2001))
    parts = {s: [] for s in range(4)}
    for v in values:
        parts[pgcuckoo.store_segment(cuckoo_hash(v), 4)].append(v)
    st = pgcuckoo.Store([(s, build(vs).to_bytes()) for s, vs in parts.items()])
    assert st.segments == 4
    assert all(st.contains_many(values))
    assert sum(st.contains_many(range(100001, 110001))) < 500
    with pytest.raises(TypeError):
        st.contains("1")
    with pytest.raises(ValueError):
        pgcuckoo.Store([(0, build([1]).to_bytes()), (2, build([2]).to_bytes())])


def test_store_from_chunk_rows():
    # 1.6: a segment as chunk rows of CHUNK_BYTES bytes (the last shorter),
    # given in any order; a gap, a chunk twice or a short chunk that is not
    # the last is an error, as on the server (docs/FORMAT.md section 14)
    from pgcuckoo._store import CHUNK_BYTES
    values = list(range(1, 6001))
    parts = {s: [] for s in range(2)}
    for v in values:
        parts[pgcuckoo.store_segment(cuckoo_hash(v), 2)].append(v)
    whole = {s: build(vs).to_bytes() for s, vs in parts.items()}
    assert all(len(b) > 2 * CHUNK_BYTES for b in whole.values())
    rows = [(s, c, b[c * CHUNK_BYTES:(c + 1) * CHUNK_BYTES])
            for s, b in whole.items() for c in range((len(b) + CHUNK_BYTES - 1) // CHUNK_BYTES)]
    st = pgcuckoo.Store.from_chunks(reversed(rows))
    assert st.segments == 2 and all(st.contains_many(values))
    assert [f.to_bytes() for f in st._segs] == [whole[0], whole[1]]
    with pytest.raises(ValueError, match="chunk 1 is missing"):
        pgcuckoo.Store.from_chunks([r for r in rows if (r[0], r[1]) != (0, 1)])
    with pytest.raises(ValueError, match="given twice"):
        pgcuckoo.Store.from_chunks(rows + [rows[0]])
    with pytest.raises(ValueError, match="chunk 1 has 10 bytes"):
        pgcuckoo.Store.from_chunks([(s, c, b[:10] if (s, c) == (0, 1) else b) for s, c, b in rows])


def test_v2_union_across_tail_bits():
    # growing filters of one creation shape but another tail (9 and 15 bits)
    # union both ways (cf2_union_into): the result keeps the first's tail,
    # no false negative, the items of disjoint parts added exactly
    # (made here, not from the vectors: from 1.3 on the server creates
    # growing filters with the address budget, whose t follows the size)
    from pgcuckoo import _v2

    def without_budget(t):
        flt = pgcuckoo.create_growing(100, 0.01)
        buf = bytearray(flt.to_bytes()[:_v2.header_bytes(flt.g)])
        buf[7] &= ~_v2.FLAG_BUDGET & 0xFF
        buf[_v2.OFF_TAIL_BITS] = t
        buf += bytes(_v2.total_bytes_2(flt.m, flt.b, flt.f + t + flt.g, flt.g) - len(buf))
        return Filter.from_bytes(bytes(buf))
    a = without_budget(9)
    assert a.info()["tail_bits"] == 9
    b = without_budget(15)
    assert b.info()["tail_bits"] == 15
    n = 1500
    for i in range(n):
        a.add_in_place(i)
        b.add_in_place(n + i)
    for x, y in ((a, b), (b, a)):
        u = x.union(y)
        assert u.info()["tail_bits"] == x.info()["tail_bits"]
        assert u.info()["items"] == 2 * n
        assert all(u.contains(i) for i in range(2 * n))
        assert Filter.from_bytes(u.to_bytes()) == u
