# examples/python/perfect_play.py on small boards: its losses are >= 0 and add up to the start's margin
# minus the final margin, and it reaches the database from a start searched above it (pytest).
# Environment: PYTHONPATH holds the module kalah, KALAH_TEST_DB a 6-pit kalah <= 8 database.
import os
import pathlib
import re
import subprocess
import sys

import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[4] / "examples" / "python" / "perfect_play.py"


def run_example(*args):
    return subprocess.run([sys.executable, str(EXAMPLE), *args], check=True,
                          capture_output=True, text=True).stdout


def check_game(out):
    """The game's (losses, sources of the agent's positions), checked for consistency."""
    start = re.search(r"^start .*: margin ([+-]?\d+) for ([SN])", out, re.M)
    final = re.search(r"^over .*: final margin ([+-]?\d+) for ([SN])", out, re.M)
    assert start and final, out
    assert start.group(2) == final.group(2)
    agent = re.findall(r"^ *\d+ agent +pit (\d): margin ([+-]\d+), best ([+-]\d+), loss (\d+) "
                       r"\((.*)\)$", out, re.M)
    assert agent, out
    losses = [int(loss) for _, _, _, loss, _ in agent]
    for _, margin, best, loss, _ in agent:
        assert int(best) - int(margin) == int(loss) >= 0
    assert sum(losses) == int(start.group(1)) - int(final.group(1)), out
    return losses, [source for *_, source in agent]


# Games (fixed by their seeds) that start above the <= 8 table and come down into it.
@pytest.mark.parametrize("agent,stones,seed", [("greedy", 2, 1), ("random", 1, 1),
                                               ("random", 1, 3)])
def test_from_above_the_table_into_it(agent, stones, seed):
    out = run_example("--db", os.environ["KALAH_TEST_DB"], "--rules", "kalah", "--pits", "6",
                      "--stones", str(stones), "--agent", agent, "--seed", str(seed))
    _, sources = check_game(out)
    assert sources[0] != "database"  # 12 or 24 stones in pits: above the table
    assert "database" in sources  # the game came down into it


def test_search_only_without_a_database():
    out = run_example("--rules", "kalah-empty-capture", "--pits", "4", "--stones", "3",
                      "--agent", "random", "--seed", "5")
    _, sources = check_game(out)
    assert set(sources) <= {"search", "database + search"}


def test_random_agent_loses_on_some_seed():
    # A random mover cannot play perfectly on every seed: losses are measured, not assumed 0.
    totals = [sum(check_game(run_example("--rules", "wetherell", "--pits", "4", "--stones", "2",
                                         "--agent", "random", "--seed", str(seed)))[0])
              for seed in range(4)]
    assert max(totals) > 0


def test_bad_arguments_fail():
    result = subprocess.run([sys.executable, str(EXAMPLE), "--db", "/nonexistent/db"],
                            capture_output=True, text=True)
    assert result.returncode != 0 and "perfect_play:" in result.stderr
