# examples/python/ against `kalah referee` on a 6-pit kalah <= 8 table (pytest): table_bot.py
# plays every drawn position's best move; fit_evaluator.py's fitted evaluator ranks the exact
# margins better than the kalah difference. Environment: PYTHONPATH holds the module,
# KALAH_BINARY the binary, KALAH_TEST_DB the database.
import json
import os
import re
import socket
import subprocess
import sys
import threading

import pytest

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


def kgp_double(greeting, script):
    """A one-connection KGP server double on a free port: sends `greeting`, then for each
    (line, replies) of script sends the line and reads `replies` lines; returns (port, thread,
    heard) where heard gets every line the client sent."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    heard = []

    def serve():
        conn, _ = server.accept()
        with conn, conn.makefile("rw") as f:
            f.write(greeting + "\r\n")
            f.flush()
            heard.extend(f.readline().strip() for _ in range(2))  # name, mode
            for line, replies in script:
                f.write(line + "\r\n")
                f.flush()
                heard.extend(f.readline().strip() for _ in range(replies))
        server.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return server.getsockname()[1], thread, heard


def test_kgp_client_answers_states_and_pings_and_refuses_another_version():
    sys.path.insert(0, EXAMPLES)
    try:
        import kgp_client
    finally:
        sys.path.pop(0)
    port, thread, heard = kgp_double("kgp 1 0 0", [
        ("4 ping", 1), ("6 state <2,3,1,0,2,1,0>", 2), ("8 goodbye", 0)])
    seen = []
    kgp_client.run("127.0.0.1", port, "freeplay", "double", lambda p: seen.append(p) or
                   ["move 2", "yield"])
    thread.join(10)
    assert seen == ["0,2,3/1,0,1 S"]
    assert heard[:2] == ['1 set info:name "double"', "3 mode freeplay"]
    assert heard[2:] == ["5@4 pong", "7@6 move 2", "9@6 yield"]
    port, thread, _ = kgp_double("kgp 2 0 0", [])
    with pytest.raises(ConnectionError, match="KGP 2 0 0, not 1"):
        kgp_client.run("127.0.0.1", port, "freeplay", "double", lambda p: [])
    thread.join(10)


def test_fit_evaluator_says_what_is_wrong_in_one_line():
    for args, words in ((["--db", "/nonexistent/kalah.db", "--kalah", KALAH], "/nonexistent"),
                        (["--db", DB, "--kalah", "/nonexistent/kalah"], "cannot run"),
                        (["--db", DB, "--kalah", KALAH, "--levels", "0"], "must be >= 1")):
        run = example("fit_evaluator.py", *args)
        assert run.returncode != 0 and words in run.stderr, run.stderr
        assert "Traceback" not in run.stderr, run.stderr


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
