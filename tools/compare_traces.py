#!/usr/bin/env python3
"""Compares the positions two solvers expand: the sets both share, each one's own, by stones in pits.

Each trace has a line per expanded position whose first tab-separated field is a position in the
notation of docs/RULES.md ("s1,..,sm,SK/n1,..,nm,NK X"), as `kalah solve --trace-expanded FILE`
writes it. Positions are compared by the mover's pits and the opponent's (the kalahs and the side
are left out: a solver's value of a position depends on its pits only), so two solvers that print
the same arrangement from different sides still match.

usage: compare_traces.py OURS THEIRS
"""
import collections
import sys


def pits_key(position):
    """The mover's pits then the opponent's, as one string; ValueError on a malformed position."""
    board, side = position.split(" ")
    south, north = (row.split(",") for row in board.split("/"))
    if side not in ("S", "N") or len(south) != len(north) or len(south) < 2:
        raise ValueError("not a position: " + position)
    own, opp = (south, north) if side == "S" else (north, south)
    return ",".join(own[:-1]) + "/" + ",".join(opp[:-1])


def load(path):
    """The expansions of each position of the trace at path."""
    counts = collections.Counter()
    with open(path) as f:
        for number, line in enumerate(f, 1):
            try:
                counts[pits_key(line.split("\t", 1)[0].strip())] += 1
            except ValueError as e:
                sys.exit("%s:%d: %s" % (path, number, e))
    return counts


def stones(key):
    return sum(int(x) for x in key.replace("/", ",").split(","))


def by_stones(keys, counts):
    h = collections.Counter()
    for k in keys:
        h[stones(k)] += counts[k]
    return " ".join("%d:%d" % (s, h[s]) for s in sorted(h))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: compare_traces.py OURS THEIRS")
    ours, theirs = load(sys.argv[1]), load(sys.argv[2])
    both = ours.keys() & theirs.keys()
    only_ours, only_theirs = ours.keys() - theirs.keys(), theirs.keys() - ours.keys()
    total = lambda keys, c: sum(c[k] for k in keys)
    print("ours:   %d expansions of %d positions" % (sum(ours.values()), len(ours)))
    print("theirs: %d expansions of %d positions" % (sum(theirs.values()), len(theirs)))
    print("both:   %d positions (ours %d expansions, theirs %d)"
          % (len(both), total(both, ours), total(both, theirs)))
    print("ours only:   %d positions, %d expansions" % (len(only_ours), total(only_ours, ours)))
    print("theirs only: %d positions, %d expansions" % (len(only_theirs), total(only_theirs, theirs)))
    print("expansions by stones in pits (stones:expansions):")
    print("  ours only:   " + by_stones(only_ours, ours))
    print("  theirs only: " + by_stones(only_theirs, theirs))
    print("  both, ours:  " + by_stones(both, ours))


if __name__ == "__main__":
    main()
