#!/usr/bin/env python3
"""tools/compare_traces.py on `kalah solve --trace-expanded` traces: a trace against itself, against
a copy written from the other side (North to move, kalahs filled), and against a part of itself;
a malformed line is refused with its file and line.
Usage: compare_traces_test.py KALAH_BINARY COMPARE_SCRIPT"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from checks import check, finish  # noqa: E402

KALAH, SCRIPT = sys.argv[1], sys.argv[2]


def compare(a, b):
    return subprocess.run([sys.executable, SCRIPT, a, b], capture_output=True, text=True, timeout=120)


def figures(out):
    """{line label: the numbers on it} of the script's summary."""
    got = {}
    for line in out.splitlines():
        if line.startswith("expansions by stones"):
            break
        label = line.split(":")[0].strip()
        got[label] = [int(x) for x in re.findall(r"\d+", line.split(":", 1)[1])] if ":" in line else []
    return got


with tempfile.TemporaryDirectory() as d:
    ours = os.path.join(d, "ours.tsv")
    r = subprocess.run([KALAH, "solve", "--rules", "kalah", "--pits", "4", "--stones", "3", "--no-db",
                        "--threads", "1", "--trace-expanded", ours], capture_output=True, text=True,
                       timeout=120)
    check(r.returncode == 0, "kalah solve --trace-expanded runs")
    lines = open(ours).read().splitlines()
    expanded = int(re.search(r"expanded (\d+)", r.stdout).group(1))
    check(len(lines) == expanded and expanded > 100, "the trace has a line per expanded node")
    positions = {l.split("\t")[0] for l in lines}

    same = figures(compare(ours, ours).stdout)
    check(same["both"][0] == len(positions) and same["ours only"] == [0, 0]
          and same["theirs only"] == [0, 0], "a trace against itself: every position in both")

    # The same positions from North's side, with stones in the kalahs: still the same positions.
    mirrored = os.path.join(d, "mirrored.tsv")
    with open(mirrored, "w") as f:
        for l in lines:
            south, north = l.split("\t")[0].split(" ")[0].split("/")
            s, n = south.split(","), north.split(",")
            s[-1], n[-1] = "7", "5"
            f.write(",".join(n) + "/" + ",".join(s) + " N\t0\t1\n")
    m = figures(compare(ours, mirrored).stdout)
    check(m["both"][0] == len(positions) and m["ours only"] == [0, 0],
          "the other side's notation of the same pits matches")

    # A part of the trace: the rest is ours only, counted by expansions.
    part = os.path.join(d, "part.tsv")
    with open(part, "w") as f:
        f.write("\n".join(lines[: len(lines) // 2]) + "\n")
    p = figures(compare(ours, part).stdout)
    shared = {l.split("\t")[0] for l in lines[: len(lines) // 2]}
    check(p["both"][0] == len(shared) and p["ours only"][0] == len(positions - shared)
          and p["theirs only"] == [0, 0] and p["ours"][0] == len(lines),
          "half a trace: the other half's positions are ours only")

    bad = os.path.join(d, "bad.tsv")
    with open(bad, "w") as f:
        f.write(lines[0] + "\n3,3,3/3,3 S\t0\t1\n")
    b = compare(ours, bad)
    check(b.returncode != 0 and b.stderr.strip().count("\n") == 0 and "bad.tsv:2" in b.stderr,
          "a malformed line is one error naming its file and line")

finish()
