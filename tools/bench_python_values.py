#!/usr/bin/env python3
"""Database.values' rate from Python: --boards boards drawn by Database.sample() over the table's
top five levels (the levels `kalah bench probe` draws from) in a shuffled order, the table decoded
into memory, then --passes calls of values() on all of them; prints boards a second of each pass
and the best. Compare: `kalah bench probe --db DB --rules R` (docs/PERFORMANCE.md).

usage: PYTHONPATH=build/solver/library/python python3 tools/bench_python_values.py --db DB"""
import argparse
import sys
import time

import numpy as np

import kalah


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--rules", default="kalah")
    parser.add_argument("--pits", type=int, default=6)
    parser.add_argument("--boards", type=int, default=1_000_000)
    parser.add_argument("--passes", type=int, default=5)
    args = parser.parse_args()
    with kalah.Database(args.db, load="memory", cache_mb=1 << 16) as db:
        table = db.table(args.rules, args.pits)
        if table is None:
            sys.exit("bench_python_values: %s holds no %s table of %d pits"
                     % (args.db, args.rules, args.pits))
        levels = range(max(2, table.max_stones - 4), table.max_stones + 1)
        each = -(-args.boards // len(levels))
        boards = np.concatenate([db.sample(args.rules, args.pits, s, each, seed=s)[0]
                                 for s in levels])[:args.boards].astype(np.int64)
        np.random.default_rng(1).shuffle(boards)
        db.values(args.rules, boards[:1])  # the table decoded before the timing
        rates = []
        for _ in range(args.passes):
            start = time.perf_counter()
            values = db.values(args.rules, boards)
            rates.append(len(boards) / (time.perf_counter() - start))
        assert not values.mask.any()
    print("values(): %d boards (%s levels %d..%d), %s" % (
        len(boards), args.rules, levels[0], levels[-1],
        ", ".join("%.2f M/s" % (r / 1e6) for r in rates)))
    print("best: %.2f M boards/s" % (max(rates) / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
