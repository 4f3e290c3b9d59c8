"""Cost of one lookup of an integer in pgcuckoo (no assertion: a measurement).

    /usr/bin/python3 clients/python/bench.py
    /usr/bin/python3 clients/python/bench.py --against OTHER/clients/python [--rounds N]

The second form also loads the pgcuckoo package of another tree (e.g. a
`git archive` of main) and times both on the same filters, alternately in
one process, N rounds (default 9) of 200,000 lookups each; it prints the
median and the fastest round of each, and the ratio of the medians.  The
lookup times are CPU time of this process (time.process_time), so that
other processes on a shared machine disturb them less than wall time.
"""
import importlib.util
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pgcuckoo  # noqa: E402


def per_call(fn, values, rounds=5):
    best = float("inf")
    for _ in range(rounds):
        t = time.process_time()
        for v in values:
            fn(v)
        best = min(best, (time.process_time() - t) / len(values))
    return best


def load_other(path):
    """The pgcuckoo package under path (a clients/python directory) as pgcuckoo_other."""
    pkg = os.path.join(os.path.abspath(path), "pgcuckoo")
    spec = importlib.util.spec_from_file_location("pgcuckoo_other", os.path.join(pkg, "__init__.py"),
                                                  submodule_search_locations=[pkg])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["pgcuckoo_other"] = mod
    spec.loader.exec_module(mod)
    return mod


def compare(other_path, rounds):
    """This tree's pgcuckoo against another's, alternately, on the same filters."""
    other = load_other(other_path)
    f = pgcuckoo.build(range(1_000_000), 0.01)
    vec = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vectors", "filters.json")
    with open(vec, encoding="utf-8") as fh:
        grown = [x for x in json.load(fh)["filters"] if x["name"] == "v2_grow_fpr01"][0]["text"]
    forms = [("version 1", f.to_bytes()), ("v2 rotated", rotated_copy(f).to_bytes()),
             ("v2 growing", pgcuckoo.Filter.from_text(grown).to_bytes())]
    probes = list(range(500_000, 700_000))     # half members, half not
    pkgs = [("this tree", pgcuckoo), (other_path, other)]
    filters = {}
    for what, data in forms:
        try:
            for name, mod in pkgs:
                filters[name, what] = mod.Filter.from_bytes(data)
        except ValueError:          # an older package that reads version 1 only
            filters.pop(("this tree", what), None)
    forms = [(what, data) for what, data in forms if ("this tree", what) in filters]
    times = {key: [] for key in filters}
    for _ in range(rounds):
        for name, _mod in pkgs:
            for what, _data in forms:
                fn = filters[name, what].contains
                t = time.process_time()
                for v in probes:
                    fn(v)
                times[name, what].append((time.process_time() - t) / len(probes) * 1e9)
    print("contains(int), ns per lookup (CPU time), %d rounds of %d lookups, Python %s"
          % (rounds, len(probes), sys.version.split()[0]))
    for what, _data in forms:
        med = {}
        for name, _mod in pkgs:
            xs = sorted(times[name, what])
            med[name] = xs[len(xs) // 2]
            print("  %-11s %-40s median %5.0f  fastest %5.0f" % (what, name, med[name], xs[0]))
        print("  %-11s ratio of the medians (this tree / other): %.2f"
              % (what, med["this tree"] / med[other_path]))


def rotated_copy(f):
    """The version-2 value SQL cuckoo_rotate(f, 2) makes of a version-1
    filter without a victim (docs/FORMAT.md 13.8: bucket (q << k) | r
    becomes r * c + q, every entry in generation 0, kept): the same bytes as
    the server's (checked against it once by hand), read back through
    Filter.from_bytes, so fully validated."""
    m, b, fb = f.m, f.b, f.f
    c, k = f.c, f.k
    g = 2
    w = fb + g
    hdr = 64 + (8 << g)
    src = f.to_bytes()
    out = bytearray(hdr + (m * b * w + 63) // 64 * 8 + 8)
    out[0:4] = src[0:4]
    out[4:8] = bytes([2, b, fb, 0])                       # version 2, no flag
    out[8:10] = src[8:10]                                 # kind
    out[10:12] = bytes([0, g])                            # t = 0, g = 2
    out[12:40] = src[12:40]                               # tag, m, kicks, items, capacity
    out[48:50] = c.to_bytes(2, "little")
    out[50:52] = bytes([1, 2])                            # cur_gen 1, keep 2
    out[52:56] = m.to_bytes(4, "little")                  # m0 = m
    out[56:64] = src[24:32]                               # entries = items
    out[64:72] = src[24:32]                               # all in generation 0
    for i in range(m):
        base = ((i & ((1 << k) - 1)) * c + (i >> k)) * b * w
        for j, x in enumerate(f._read(i)):
            if x:
                pos = base + j * w
                o = hdr + (pos >> 3)
                cur = int.from_bytes(out[o:o + 5], "little") | (x << (pos & 7))
                out[o:o + 5] = cur.to_bytes(5, "little")
    return pgcuckoo.Filter.from_bytes(bytes(out))


def main():
    if "--against" in sys.argv:
        rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 9
        compare(sys.argv[sys.argv.index("--against") + 1], rounds)
        return
    n = 1_000_000
    t = time.perf_counter()
    f = pgcuckoo.build(range(n), 0.01)
    build_s = time.perf_counter() - t
    probes = list(range(n // 2, n // 2 + 200_000))     # half members, half not
    print("pgcuckoo %s, Python %s" % (pgcuckoo.__version__, sys.version.split()[0]))
    print("build(range(%d), 0.01): %.2f s (wall), %d bytes" % (n, build_s, len(f.to_bytes())))
    print("(lookups: CPU time of this process, the best of 5 rounds)")
    print("contains(int):     %.0f ns per lookup" % (per_call(f.contains, probes) * 1e9))
    print("cuckoo_hash(int):  %.0f ns per hash" % (per_call(pgcuckoo.cuckoo_hash, probes) * 1e9))
    t = time.process_time()
    f.contains_many(probes)
    print("contains_many:     %.0f ns per value" % ((time.process_time() - t) / len(probes) * 1e9))
    ss = pgcuckoo.Filter.from_bytes(f.to_bytes())
    print("count(int):        %.0f ns per call" % (per_call(ss.count, probes[:50_000]) * 1e9))
    # format version 2: the same filter rotated, and a growing one from the vectors
    t = time.perf_counter()
    r = rotated_copy(f)
    print("version 2, that filter rotated (keep 2; made and validated in %.1f s):" % (time.perf_counter() - t))
    print("  contains(int):   %.0f ns per lookup" % (per_call(r.contains, probes) * 1e9))
    vec = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vectors", "filters.json")
    with open(vec, encoding="utf-8") as fh:
        grown = [x for x in json.load(fh)["filters"] if x["name"] == "v2_grow_fpr01"][0]
    gf = pgcuckoo.Filter.from_text(grown["text"])
    print("version 2, growing (clients/vectors v2_grow_fpr01: %d items, %d bytes):"
          % (gf.items, len(gf.to_bytes())))
    print("  contains(int):   %.0f ns per lookup" % (per_call(gf.contains, probes) * 1e9))


if __name__ == "__main__":
    main()
