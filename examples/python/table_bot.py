#!/usr/bin/env python3
"""A KGP bot that plays the table's best move wherever the table values every move, and a shallow
search elsewhere (negamax to --depth plies, the table's exact value at the leaves it covers, the
kalah difference at the others). Point it at `kalah referee` or a go-kgp server:

    kalah referee --db DB &                 # grades it (docs/REFEREE.md)
    python3 examples/python/table_bot.py --db DB
"""
import argparse
import sys

import kalah
from kgp_client import kalah_difference, run

RULES = "kalah"  # KGP's game


def mover_of(position):
    return position.split()[1]


def children(position):
    """(pit, position after it) for each legal move, by the module's rules: play() raises
    ValueError for an empty pit (the pits are in range, and a game that is over never gets
    here: Database.value answers it first)."""
    pits = len(position.split("/")[0].split(",")) - 1
    for pit in range(1, pits + 1):
        try:
            yield pit, kalah.play(RULES, position, pit)
        except ValueError:
            pass


def negamax(db, position, depth):
    """The position's value for its side to move: the table's exact value where it covers the
    position (or the final margin of a game that is over), else a search of `depth` plies with
    the kalah difference at its leaves."""
    exact = db.value(RULES, position)
    if exact is not None:
        return exact
    if depth == 0:
        return kalah_difference(position)
    return max(score(db, position, child, depth - 1) for _, child in children(position))


def score(db, position, child, depth):
    """The child's value for the side to move in position (the same side after an extra turn)."""
    value = negamax(db, child, depth)
    return value if mover_of(child) == mover_of(position) else -value


def choose(db, position, depth):
    """The pit to play: the lowest best move where the table answers, else the search's."""
    answer = db.lookup(RULES, position)
    if answer is not None and answer.best_moves:
        return answer.best_moves[0]
    return max(children(position), key=lambda c: (score(db, position, c[1], depth - 1), -c[0]))[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="a database with a kalah table")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=2671, help="the KGP server's (default 2671)")
    parser.add_argument("--depth", type=int, default=4, help="plies searched beyond the table")
    args = parser.parse_args()
    if args.depth < 1:
        parser.error("--depth must be >= 1")
    try:
        with kalah.Database(args.db) as db:
            run(args.host, args.port, "freeplay", "table_bot",
                lambda position: ["move %d" % choose(db, position, args.depth), "yield"])
    except (kalah.DatabaseError, OSError) as e:
        print("table_bot: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
