#!/usr/bin/env python3
"""`kalah solve --checkpoint`: a solve killed midway (SIGKILL) and one stopped by SIGINT resume from
the checkpoint to the answer of an uninterrupted solve, with fewer nodes; a checkpoint of another
solve, a corrupt one, a missing directory and bad options are refused with one line and a non-zero
status; a final write that fails comes after the answer and leaves the last checkpoint whole.
Usage: solve_checkpoint_test.py KALAH_BINARY"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
from checks import check, finish  # noqa: E402

KALAH = sys.argv[1]
# About 3 s in a release build; the memo is off so that the table holds what the work proved.
SOLVE = ["solve", "--rules", "wetherell", "--pits", "6", "--stones", "2", "--no-db", "--memo", "0",
         "--threads", "1", "--tt-mb", "16", "--json"]


def run(args, expect=0):
    r = subprocess.run([KALAH] + args, capture_output=True, text=True, timeout=600)
    if r.returncode != expect:
        check(False, f"kalah {' '.join(args)} exited {r.returncode}, not {expect}: {r.stderr}")
    return r


def header(path):
    with open(path, "rb") as f:
        f.readline()
        return json.loads(f.readline())


def stop_midway(path, sig, min_seconds):
    """Starts the solve with a checkpoint written every 0.2 s and sends `sig` once the checkpoint
    records min_seconds of work; returns the process's exit status and output."""
    proc = subprocess.Popen([KALAH] + SOLVE + ["--checkpoint", path, "--checkpoint-every", "0.2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        try:
            if header(path)["seconds"] >= min_seconds:
                break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.05)
    if proc.poll() is not None:
        check(False, "the solve ended before it could be stopped")
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err


full = json.loads(run(SOLVE).stdout)
check(full["complete"], "the uninterrupted solve completes")

with tempfile.TemporaryDirectory() as work:
    # SIGKILL: nothing but the last periodic checkpoint survives.
    path = os.path.join(work, "killed.ckpt")
    status, _, _ = stop_midway(path, signal.SIGKILL, 1.0)
    check(status == -signal.SIGKILL, "the first run was killed")
    before = header(path)
    check(not before["complete"] and before["table"], "the checkpoint holds an unfinished solve")
    resumed = json.loads(run(SOLVE + ["--checkpoint", path]).stdout)
    check(resumed["complete"], "the resumed solve completes")
    check((resumed["margin"], resumed["best_moves"]) == (full["margin"], full["best_moves"]),
          f"resumed after SIGKILL: margin {resumed['margin']} best {resumed['best_moves']}, "
          f"uninterrupted {full['margin']} {full['best_moves']}")
    check(resumed["nodes"] < full["nodes"],
          f"the resumed run searched less: {resumed['nodes']} < {full['nodes']} nodes")
    check(resumed["checkpoint"]["runs"] == 2, "the checkpoint counts two runs")
    check(not os.path.exists(path + ".tmp"), "no temporary file is left")

    # SIGINT: the solve stops, prints its bounds, keeps them and exits 130.
    path = os.path.join(work, "interrupted.ckpt")
    status, out, _ = stop_midway(path, signal.SIGINT, 0.8)
    check(status == 130, f"SIGINT exits 130 (got {status})")
    stopped = json.loads(out)
    check(not stopped["complete"] and stopped["lower"] <= full["margin"] <= stopped["upper"],
          "SIGINT prints the proven bounds, which hold the margin")
    kept = header(path)
    check((kept["lower"], kept["upper"]) == (stopped["lower"], stopped["upper"]),
          "the checkpoint keeps the bounds printed")
    resumed = json.loads(run(SOLVE + ["--checkpoint", path]).stdout)
    check((resumed["margin"], resumed["best_moves"]) == (full["margin"], full["best_moves"]),
          "resumed after SIGINT: the uninterrupted answer")
    check(resumed["nodes"] < full["nodes"], "the resumed run searched less after SIGINT")

    # Refusals: another position, another table size, a corrupt file, options out of place.
    other = run(["solve", "--rules", "wetherell", "--pits", "6", "--stones", "3", "--no-db",
                 "--checkpoint", path], expect=2)
    check("not of this solve" in other.stderr and other.stderr.count("\n") == 1,
          "a checkpoint of another position is refused in one line")
    bigger = [("32" if a == "16" else a) for a in SOLVE]  # --tt-mb 32
    size = run(bigger + ["--checkpoint", path], expect=2)
    check("--tt-mb 16" in size.stderr, "another table size is refused, naming the checkpoint's")
    with open(path, "r+b") as f:
        f.seek(-64, os.SEEK_END)
        f.write(b"\xff" * 8)
    corrupt = run(SOLVE + ["--checkpoint", path], expect=1)
    check("corrupt" in corrupt.stderr and corrupt.stderr.count("\n") == 1,
          "a corrupt checkpoint is refused in one line")
    bad = run(SOLVE + ["--checkpoint-every", "5"], expect=2)
    check("--checkpoint" in bad.stderr, "--checkpoint-every without --checkpoint is refused")
    bad = run(SOLVE + ["--checkpoint", path, "--checkpoint-every", "0"], expect=2)
    check("must be > 0" in bad.stderr, "--checkpoint-every 0 is refused")

    # A checkpoint in a directory that does not exist: one line before any search (no progress
    # line, no answer), exit 1.
    nowhere = os.path.join(work, "no-such-dir", "x.ckpt")
    r = run(SOLVE + ["--checkpoint", nowhere, "--progress"], expect=1)
    check(r.stdout == "" and r.stderr.count("\n") == 1 and nowhere in r.stderr
          and "does not exist" in r.stderr,
          f"a missing directory is refused in one line before the search: {r.stderr!r}")

    # The final write fails (a directory holds the temporary file's name): the answer is printed
    # first, a warning names the file and says the previous checkpoint is kept, the exit status is
    # 3, and the last good checkpoint is byte for byte what it was.
    path = os.path.join(work, "kept.ckpt")
    run(SOLVE + ["--checkpoint", path, "--max-time", "0.3"])
    with open(path, "rb") as f:
        good = f.read()
    os.mkdir(path + ".tmp")
    r = run(SOLVE + ["--checkpoint", path], expect=3)
    answer = json.loads(r.stdout)
    check(answer["complete"] and answer["margin"] == full["margin"],
          "the answer is printed although the checkpoint cannot be written")
    lines = r.stderr.splitlines()
    check(len(lines) >= 1 and all(path in l and "warning" in l for l in lines)
          and "previous checkpoint" in lines[-1] and "kept" in lines[-1],
          f"each failed write is a one-line warning naming the file: {r.stderr!r}")
    with open(path, "rb") as f:
        check(f.read() == good, "the last good checkpoint is unchanged")
    check(os.path.isdir(path + ".tmp"), "the directory in the temporary's place is left alone")
    text = run(SOLVE[:-1] + ["--checkpoint", path], expect=3)  # without --json
    check("margin:" in text.stdout and "checkpoint:" not in text.stdout,
          "the text answer is printed, without a checkpoint line")

finish()
