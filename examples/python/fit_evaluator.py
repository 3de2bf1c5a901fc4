#!/usr/bin/env python3
"""Fits an evaluator of Kalah positions in a few lines of numpy and has `kalah referee` grade it.

The training data is the table itself: Database.sample() draws boards of the table's top
--levels levels with their exact margins. A margin is the kalah difference plus what the stones
in pits will still bring (docs/RULES.md, "future margin"), so the evaluator is the kalah
difference plus a least-squares fit of that future on the 2m pit counts. The referee's eval mode
then ranks its numbers against the exact margins of --positions positions it draws inside the
table, beside those of the kalah difference alone (Kendall's tau-b, Spearman's rho):

    python3 examples/python/fit_evaluator.py --db DB --kalah build/tools/kalah
"""
import argparse
import json
import re
import subprocess
import sys
import threading

import numpy as np

import kalah
from kgp_client import kalah_difference, run

RULES = "kalah"  # KGP's game, the referee's rules


def fit(db, pits, levels, n):
    """Weights w (2m pit counts, then a constant): future margin ~ w . (pits, 1), by least squares
    on n boards of each level (stones in pits) of `levels`."""
    boards, margins = zip(*(db.sample(RULES, pits, s, n, seed=s) for s in levels))
    boards, margins = np.concatenate(boards), np.concatenate(margins)
    kalahs = boards[:, pits] - boards[:, 2 * pits + 1]
    cells = np.delete(boards, [pits, 2 * pits + 1], axis=1)
    features = np.hstack([cells, np.ones((len(cells), 1))])
    w, *_ = np.linalg.lstsq(features, margins - kalahs, rcond=None)
    return w


def evaluator(w, pits):
    """The value of a position with South to move (as KGP sends them): kalah difference +
    fitted future."""
    def evaluate(position):
        halves = position.split()[0].split("/")
        south, north = ([int(x) for x in h.split(",")] for h in halves)
        cells = np.array(south[:pits] + north[:pits] + [1])
        return kalah_difference(position) + float(cells @ w)
    return evaluate


def grade(kalah_binary, db_path, pits, positions, stones_in_pits, evaluators):
    """The referee's eval reports of the evaluators {name: f(position)}, one session each."""
    try:
        referee = subprocess.Popen(
            [kalah_binary, "referee", "--db", db_path, "--port", "0", "--json", "--pits",
             str(pits), "--positions", str(positions), "--stones-in-pits", stones_in_pits,
             "--sessions", str(len(evaluators))],
            stdout=subprocess.PIPE, text=True)
    except OSError as e:
        sys.exit("fit_evaluator: cannot run %s: %s (--kalah names the binary)" % (kalah_binary, e))
    try:
        listening = re.search(r"listening on [^:]+:(\d+)", referee.stdout.readline())
        if not listening:
            sys.exit("fit_evaluator: kalah referee did not start (its error is above)")
        port = int(listening.group(1))
        errors = []

        def session(name, f):
            try:
                run("127.0.0.1", port, "eval", name, lambda p: ["eval %.6f" % f(p), "yield"])
            except OSError as e:
                errors.append("%s: %s" % (name, e))

        bots = [threading.Thread(target=session, args=item) for item in evaluators.items()]
        for bot in bots:
            bot.start()
        for bot in bots:
            bot.join()
        if errors:
            sys.exit("fit_evaluator: " + "; ".join(errors))
        out, _ = referee.communicate(timeout=120)
    finally:
        referee.kill()
    if referee.returncode != 0:
        sys.exit("fit_evaluator: kalah referee exited with %d" % referee.returncode)
    return {r["name"]: r["evaluations"] for r in map(json.loads, out.splitlines())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="a database with a kalah table")
    parser.add_argument("--kalah", default="kalah", help="the kalah binary (default: on PATH)")
    parser.add_argument("--pits", type=int, default=6)
    parser.add_argument("--levels", type=int, default=4, help="top levels of the table to fit on")
    parser.add_argument("--samples", type=int, default=20000, help="boards a level")
    parser.add_argument("--positions", type=int, default=1000, help="positions the referee ranks")
    args = parser.parse_args()
    if min(args.levels, args.samples, args.positions) < 1:
        parser.error("--levels, --samples and --positions must be >= 1")
    try:
        with kalah.Database(args.db, load="memory", cache_mb=4096) as db:
            table = db.table(RULES, args.pits)
            if table is None or table.max_stones < 2:
                parser.error("%s holds no kalah table of %d pits with 2 or more stones"
                             % (args.db, args.pits))
            levels = range(max(2, table.max_stones - args.levels + 1), table.max_stones + 1)
            w = fit(db, args.pits, levels, args.samples)
    except (kalah.DatabaseError, ValueError) as e:
        sys.exit("fit_evaluator: %s" % e)
    print("future ~ " + " ".join("%+.3f" % x for x in w[:-1]) + " %+.3f" % w[-1])
    print("        (the side to move's pits 1..%d, the opponent's 1..%d, a constant)"
          % (args.pits, args.pits))
    span = "%d-%d" % (levels[0], levels[-1])
    reports = grade(args.kalah, args.db, args.pits, args.positions, span,
                    {"fitted": evaluator(w, args.pits), "kalah-difference": kalah_difference})
    print("ranked against the exact margins of %d positions with %s stones in pits:"
          % (args.positions, span))
    print("%-18s %8s %8s" % ("evaluator", "tau-b", "rho"))
    for name in ("fitted", "kalah-difference"):
        e = reports[name]
        print("%-18s %8.4f %8.4f" % (name, e["kendall_tau_b"], e["spearman_rho"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
