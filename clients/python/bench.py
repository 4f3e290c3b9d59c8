"""Cost of one lookup of an integer in pgcuckoo (no assertion: a measurement).

    /usr/bin/python3 clients/python/bench.py
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pgcuckoo  # noqa: E402


def per_call(fn, values, rounds=5):
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        for v in values:
            fn(v)
        best = min(best, (time.perf_counter() - t) / len(values))
    return best


def main():
    n = 1_000_000
    t = time.perf_counter()
    f = pgcuckoo.build(range(n), 0.01)
    build_s = time.perf_counter() - t
    probes = list(range(n // 2, n // 2 + 200_000))     # half members, half not
    print("pgcuckoo %s, Python %s" % (pgcuckoo.__version__, sys.version.split()[0]))
    print("build(range(%d), 0.01): %.2f s, %d bytes" % (n, build_s, len(f.to_bytes())))
    print("contains(int):     %.0f ns per lookup" % (per_call(f.contains, probes) * 1e9))
    print("cuckoo_hash(int):  %.0f ns per hash" % (per_call(pgcuckoo.cuckoo_hash, probes) * 1e9))
    t = time.perf_counter()
    f.contains_many(probes)
    print("contains_many:     %.0f ns per value" % ((time.perf_counter() - t) / len(probes) * 1e9))
    ss = pgcuckoo.Filter.from_bytes(f.to_bytes())
    print("count(int):        %.0f ns per call" % (per_call(ss.count, probes[:50_000]) * 1e9))


if __name__ == "__main__":
    main()
