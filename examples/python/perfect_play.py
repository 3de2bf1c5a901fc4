#!/usr/bin/env python3
"""perfect_play: a simple agent against perfect play, with the margin each agent move loses.

The agent moves for the side to move at the start; the other side plays the lowest best move.
Every position is asked of the Python module kalah: from the database where the game has reached
it, by search (with the database at the leaves) above it. A move's loss is the position's exact
margin minus the move's (both for the agent), so the losses add up to the start's margin minus
the agent's final margin.

Usage: perfect_play.py [--db DIR] [--rules R] (--pits N --stones N | --position P)
                       [--agent random|greedy] [--seed S] [--max-time SEC]
"""
import argparse
import random
import sys

import kalah


def kalah_of(position, side):
    """Stones in `side`'s kalah ("S" or "N") in a position's notation."""
    south, north = position.split()[0].split("/")
    return int((south if side == "S" else north).split(",")[-1])


def side_to_move(position):
    return position.split()[1]


def random_agent(rng, rules, position, pits):
    return rng.choice(pits)


def greedy_agent(rng, rules, position, pits):
    """The move that puts the most stones into the mover's kalah now; ties to the lowest pit."""
    mover = side_to_move(position)
    return max(pits, key=lambda pit: (kalah_of(kalah.play(rules, position, pit), mover), -pit))


AGENTS = {"random": random_agent, "greedy": greedy_agent}


def exact_answer(db, rules, position, max_time):
    answer = db.query(rules, position, max_time=max_time)
    if not answer.value.exact:
        sys.exit("perfect_play: %s not settled within --max-time %g s (bounds %d..%d)" %
                 (position, max_time, answer.value.lower, answer.value.upper))
    return answer


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", help="database directory (default: none, search only)")
    parser.add_argument("--rules", default="kalah", choices=kalah.rule_sets())
    parser.add_argument("--pits", type=int, default=6)
    parser.add_argument("--stones", type=int, default=2)
    parser.add_argument("--position", help="start from this position instead of --pits/--stones")
    parser.add_argument("--agent", default="greedy", choices=sorted(AGENTS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-time", type=float, default=60,
                        help="seconds of search a position (0: no limit)")
    args = parser.parse_args()

    try:
        db = kalah.Database(args.db)
        position = args.position or kalah.start_position(args.pits, args.stones)
        agent_side = side_to_move(position)
        rng = random.Random(args.seed)
        answer = exact_answer(db, args.rules, position, args.max_time)
        start_margin = answer.margin
        print("start %s: margin %+d for %s (the agent, %s)" %
              (answer.position, start_margin, agent_side, args.agent))
        total_loss = 0
        ply = 0
        while not answer.over:
            ply += 1
            pits = [m.pit for m in answer.moves]
            if side_to_move(answer.position) == agent_side:
                pit = AGENTS[args.agent](rng, args.rules, answer.position, pits)
                move = next(m for m in answer.moves if m.pit == pit)
                if not move.value.exact:
                    sys.exit("perfect_play: pit %d of %s not settled within --max-time" %
                             (pit, answer.position))
                loss = answer.margin - move.margin
                total_loss += loss
                print("%3d agent   pit %d: margin %+d, best %+d, loss %d (%s)" %
                      (ply, pit, move.margin, answer.margin, loss, answer.source))
            else:
                pit = answer.best_moves[0]
                print("%3d perfect pit %d: margin %+d for %s (%s)" %
                      (ply, pit, answer.margin, side_to_move(answer.position), answer.source))
            answer = exact_answer(db, args.rules, kalah.play(args.rules, answer.position, pit),
                                  args.max_time)
        final = answer.margin if side_to_move(answer.position) == agent_side else -answer.margin
        print("over %s: final margin %+d for %s" % (answer.position, final, agent_side))
        print("total loss %d = start margin %+d - final margin %+d" %
              (total_loss, start_margin, final))
    except (ValueError, kalah.DatabaseError) as e:
        sys.exit("perfect_play: %s" % e)


if __name__ == "__main__":
    main()
