# examples/python/ against `kalah referee` on a 6-pit kalah <= 8 table (pytest): table_bot.py
# plays every drawn position's best move; fit_evaluator.py's fitted evaluator ranks the exact
# margins better than the kalah difference. Environment: PYTHONPATH holds the module,
# KALAH_BINARY the binary, KALAH_TEST_DB the database.
import json
import os
import re
import subprocess
import sys

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "examples", "python")
KALAH = os.environ.get("KALAH_BINARY", "kalah")
DB = os.environ.get("KALAH_TEST_DB", "")


def example(name, *args, **kw):
    return subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *args],
                          capture_output=True, text=True, timeout=300, **kw)


def test_table_bot_plays_the_best_move_of_every_position_inside_the_table():
    referee = subprocess.Popen([KALAH, "referee", "--db", DB, "--port", "0", "--json",
                                "--sessions", "1", "--positions", "300"],
                               stdout=subprocess.PIPE, text=True)
    try:
        port = re.search(r"listening on 127\.0\.0\.1:(\d+)", referee.stdout.readline()).group(1)
        bot = example("table_bot.py", "--db", DB, "--port", port)
        assert bot.returncode == 0, bot.stderr
        report = json.loads(referee.communicate(timeout=120)[0].splitlines()[-1])
    finally:
        referee.kill()
    moves = report["moves"]
    assert report["name"] == "table_bot" and report["ended"] == "all positions sent"
    assert moves["states"] == moves["proven"] == moves["best"] == 300
    assert moves["best_share"] == 1.0 and moves["worst_given_away"] == 0


def test_table_bot_says_what_is_wrong_in_one_line():
    bot = example("table_bot.py", "--db", "/nonexistent/kalah.db")
    assert bot.returncode == 1 and bot.stderr.startswith("table_bot: ")
    assert len(bot.stderr.strip().splitlines()) == 1 and "/nonexistent/kalah.db" in bot.stderr


def test_fit_evaluator_ranks_the_margins_better_than_the_kalah_difference():
    run = example("fit_evaluator.py", "--db", DB, "--kalah", KALAH, "--samples", "5000",
                  "--positions", "500")
    assert run.returncode == 0, run.stderr
    rows = dict(re.findall(r"^(fitted|kalah-difference)\s+(\S+\s+\S+)$", run.stdout, re.M))
    assert set(rows) == {"fitted", "kalah-difference"}, run.stdout
    fitted, difference = ([float(x) for x in rows[k].split()] for k in rows)
    assert all(-1 <= x <= 1 for x in fitted + difference)
    assert fitted[0] > difference[0] and fitted[1] > difference[1], run.stdout
    assert "500 positions with 5-8 stones in pits" in run.stdout
