#!/usr/bin/env python3
"""Damaged databases, made here from a good one, met by every command that reads a database, by
kalah serve and by the Python module: each answers an error naming the database (exit status 1,
one line; HTTP 500; kalah.DatabaseError) or the value the good database gives, never a signal,
never a wrong exact value.

Usage: damaged_db_test.py KALAH_BINARY WORK_DIR [RANDOM_COPIES]
The Python module is tested when KALAH_PYTHON_MODULE=1 (PYTHONPATH then holds it; a sanitizer
build has none); the output says which.
"""
import http.client
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import time
import urllib.parse

KALAH, WORK = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
RANDOM_COPIES = int(sys.argv[3]) if len(sys.argv) > 3 else 12
# KALAH_PYTHON_MODULE=1: the module is built beside the binary and must be tested.
if os.environ.get("KALAH_PYTHON_MODULE") == "1":
    import kalah
else:
    kalah = None

RULES, PITS = "wetherell", 4
IN_TABLE = "1,2,1,0,0/2,1,0,1,0 S"     # 8 stones: the levels alone
BOOK_ROOT = "2,2,2,2,0/2,2,2,2,0 S"    # 16 stones: the book
BEYOND = "3,2,1,2,0/2,1,2,0,0 N"       # 13 stones: a search with the levels at its leaves
failures = []


def fail(message):
    failures.append(message)
    print("FAILED: " + message, file=sys.stderr)


def run(*args, timeout=300):
    return subprocess.run([KALAH, *args], capture_output=True, text=True, timeout=timeout)


# --- LMDB 0.9's page layout (db/lmdb_check.cpp reads the same), to aim damage at live pages.

class Lmdb:
    """The newest snapshot of a data.mdb: its index pages and where each record's value lies."""

    def __init__(self, data):
        self.data = data
        self.psize = struct.unpack_from("<I", data, 16 + 24)[0]
        metas = [self.meta(off) for off in (0, self.psize)]
        self.txnid, self.roots = max(metas)
        self.index_pages = []   # (pgno, depth) of every live branch and leaf page
        self.values = {}        # main database: key -> (file offset of the value, size)
        self.root_children = []  # (file offset of the node, child pgno) of the main root's nodes
        for which, root in enumerate(self.roots):
            if root != (1 << 64) - 1:
                self.walk(root, which == 1, 1)

    def meta(self, off):
        txnid = struct.unpack_from("<Q", self.data, off + 16 + 128)[0]
        roots = tuple(struct.unpack_from("<Q", self.data, off + 16 + 24 + 48 * i + 40)[0]
                      for i in (0, 1))
        return txnid, roots

    def walk(self, pgno, main, depth):
        base = pgno * self.psize
        self.index_pages.append((pgno, depth))
        flags, lower = struct.unpack_from("<HH", self.data, base + 10)
        for i in range((lower - 16) // 2):
            at = base + struct.unpack_from("<H", self.data, base + 16 + 2 * i)[0]
            lo, hi, nflags, ksize = struct.unpack_from("<HHHH", self.data, at)
            if flags & 1:
                child = lo | hi << 16 | nflags << 32
                if main and depth == 1:
                    self.root_children.append((at, child))
                self.walk(child, main, depth + 1)
            elif main:
                key = self.data[at + 8:at + 8 + ksize]
                size = lo | hi << 16
                if nflags & 1:
                    overflow = struct.unpack_from("<Q", self.data, at + 8 + ksize)[0]
                    self.values[key] = (overflow * self.psize + 16, size)
                else:
                    self.values[key] = (at + 8 + ksize, size)


# --- The damage, one function a kind: each changes `data` (a bytearray) in place or returns a
# new one.

def flip(data, offset, bit=4):
    data[offset] ^= 1 << bit


def group_value(lmdb, rules_code, n):
    return lmdb.values[bytes([3, rules_code, PITS, n, 0, 0, 0, 0])]


def book_entries(lmdb):
    return sorted(k for k in lmdb.values if k[0] == 4)


def damage_cases(data, rng):
    lmdb = Lmdb(bytes(data))
    cases = {}
    cases["truncated to half"] = data[:len(data) // 2]
    cases["truncated to 3 pages"] = data[:3 * lmdb.psize]
    cases["empty data.mdb"] = bytearray()
    d = bytearray(data)
    at, size = group_value(lmdb, 0, 10)
    flip(d, at + size // 2)
    cases["a flipped byte in a wetherell block"] = d
    d = bytearray(data)
    node, _ = lmdb.root_children[-1]
    overflow_page = group_value(lmdb, 0, 10)[0] // lmdb.psize
    struct.pack_into("<HHH", d, node, overflow_page & 0xFFFF, overflow_page >> 16 & 0xFFFF,
                     overflow_page >> 32)
    cases["the root's last child pointer aimed at a data page"] = d
    d = bytearray(data)
    at, _ = lmdb.values[book_entries(lmdb)[1]]
    flip(d, at, 1)  # the margin's low byte: +-2, a margin of the right parity
    cases["a book entry's margin changed by 2"] = d
    d = bytearray(data)
    (a_at, a_size), (b_at, _) = (lmdb.values[k] for k in book_entries(lmdb)[2:4])
    d[b_at:b_at + a_size] = data[a_at:a_at + a_size]
    cases["a book entry's value copied onto another entry"] = d
    d = bytearray(data)
    at, _ = lmdb.values[bytes([2, 0, PITS, 7])]
    flip(d, at + 40, 0)  # the completion mark
    cases["a level record's completion mark cleared"] = d
    d = bytearray(data)
    at, _ = lmdb.values[bytes([1, 0, PITS])]
    struct.pack_into("<h", d, at + 6, 12)  # levels 0..12 claimed complete: 11 and 12 are absent
    cases["the table record claiming two levels more"] = d
    for copy in range(RANDOM_COPIES):
        d = bytearray(data)
        pgno, depth = rng.choice(lmdb.index_pages)
        for _ in range(rng.randint(1, 4)):
            flip(d, pgno * lmdb.psize + rng.randrange(lmdb.psize), rng.randrange(8))
        cases["random bits flipped in index page %d (depth %d), copy %d" % (pgno, depth, copy)] = d
    return cases


# --- What each reader must do on a damaged copy.

def query_values(text):
    """The exact values of a query --json answer: margin and each move's margin."""
    a = json.loads(text)
    return (a["margin"], a["exact"], [(m["pit"], m["margin"], m["exact"]) for m in a["moves"]])


def check_cli(name, db, good):
    for label, args, values in (
            ("query in the table", ["query", IN_TABLE, "--json", "--threads", "2"], query_values),
            ("query of the book's root", ["query", BOOK_ROOT, "--json", "--threads", "2",
                                          "--max-time", "60"], query_values),
            ("query beyond the table", ["query", BEYOND, "--json", "--threads", "2",
                                        "--db-load", "cache", "--max-time", "60"], query_values),
            ("solve", ["solve", BEYOND, "--json", "--threads", "2"],
             lambda t: (json.loads(t)["margin"], json.loads(t)["best_moves"])),
            ("stats", ["stats"], None),
            ("play --exact", ["play", "--self", "--exact", "--no-random", "--threads", "2",
                              "--position", BEYOND], None),
            ("tree", ["tree", BEYOND, "--depth", "4"], None),
            ("bench probe", ["bench", "probe", "--pits", str(PITS), "--positions", "2000",
                             "--passes", "1", "--threads", "2"], None)):
        r = run(*args, "--rules", RULES, "--db", db)
        where = "%s: %s: exit %d, stderr %r" % (name, label, r.returncode, r.stderr[-300:])
        if r.returncode == 0:
            if values and values(r.stdout) != values(good[label]):
                fail(where + ": a wrong value: " + r.stdout[:300])
        elif r.returncode != 1 or r.stderr.count("\n") != 1 or db not in r.stderr:
            fail(where + ": not exit 1 with one line naming the database")
    # verify reports what it finds on stdout (exit 1), or fails to open in one line; damage made
    # on purpose is found (random bits may land in a page's unused bytes).
    r = run("verify", "--rules", RULES, "--db", db)
    reported = r.returncode == 1 and ("FAILED" in r.stdout or (
        r.stderr.strip().count("\n") == 0 and db in r.stderr))
    if not reported and (r.returncode != 0 or not name.startswith("random")):
        fail("%s: verify: exit %d, stdout %r, stderr %r" % (name, r.returncode, r.stdout[-300:],
                                                             r.stderr[-300:]))
    # A writer extends the table or refuses; the good levels stay readable when it writes.
    r = run("gen", "--rules", RULES, "--pits", str(PITS), "--max-stones", "11", "--quiet",
            "--db", db)
    if r.returncode not in (0, 1) or (r.returncode == 1 and r.stderr.count("\n") != 1):
        fail("%s: gen: exit %d, stderr %r" % (name, r.returncode, r.stderr[-300:]))


def check_python(name, db, good):
    if kalah is None:
        return
    try:
        with kalah.Database(db, load="cache") as d:
            for position in (IN_TABLE, BOOK_ROOT, BEYOND):
                try:
                    a = d.query(RULES, position, max_time=60, threads=2)
                    if (a.margin, [(m.pit, m.margin) for m in a.moves]) != good[position]:
                        fail("%s: Python query %s: a wrong value %s" % (name, position, a.margin))
                except kalah.DatabaseError as e:
                    if db not in str(e):
                        fail("%s: Python query: DatabaseError not naming the database: %s"
                             % (name, e))
    except kalah.DatabaseError as e:
        if db not in str(e):
            fail("%s: Python open: DatabaseError not naming the database: %s" % (name, e))


def start_server(db):
    proc = subprocess.Popen([KALAH, "serve", "--db", db, "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if "listening on http://127.0.0.1:" not in line:
        proc.wait(timeout=30)
        return proc, None
    return proc, int(line.split("127.0.0.1:")[1].split("/")[0])


def get(port, rules, position):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("GET", "/api/v1/query?" + urllib.parse.urlencode(
        {"rules": rules, "position": position, "max_time": 30}))
    res = conn.getresponse()
    body = res.read().decode("utf-8", "replace")
    conn.close()
    return res.status, body


def check_serve(name, db, good):
    proc, port = start_server(db)
    if port is None:
        err = proc.stderr.read()
        if proc.returncode != 1 or err.count("\n") != 1 or db not in err:
            fail("%s: serve did not start and did not say why in one line: exit %s, %r"
                 % (name, proc.returncode, err[-300:]))
        return
    try:
        for rules, position in ((RULES, IN_TABLE), (RULES, BEYOND), ("kalah", IN_TABLE)):
            try:
                status, body = get(port, rules, position)
            except (OSError, http.client.HTTPException) as e:
                fail("%s: serve %s %s: no answer (%s), exit %s" % (name, rules, position, e,
                                                                   proc.poll()))
                return
            if status == 200:
                if query_values(body) != good[("serve", rules, position)]:
                    fail("%s: serve %s %s: a wrong value: %s" % (name, rules, position, body[:300]))
            elif status != 500 or db not in body:
                fail("%s: serve %s %s: status %d, %s" % (name, rules, position, status, body[:300]))
        if proc.poll() is not None:
            fail("%s: serve died (exit %s)" % (name, proc.returncode))
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    good_db = os.path.join(WORK, "good")
    for rules in (RULES, "kalah"):
        subprocess.run([KALAH, "gen", "--rules", rules, "--pits", str(PITS), "--max-stones", "10",
                        "--quiet", "--db", good_db], check=True)
    subprocess.run([KALAH, "solve", "--rules", RULES, "--db", good_db, "--store", "--book-plies",
                    "4", "--quiet", BOOK_ROOT], check=True, capture_output=True)
    data = bytearray(open(os.path.join(good_db, "data.mdb"), "rb").read())
    if Lmdb(bytes(data)).roots[1] is None or not Lmdb(bytes(data)).root_children:
        sys.exit("damaged_db_test: the good database's main tree has no branch root")

    good = {}
    good_copy = os.path.join(WORK, "good_copy")  # the answers, from a copy like the damaged ones
    shutil.copytree(good_db, good_copy)
    for label, args in (("query in the table", [IN_TABLE]),
                        ("query of the book's root", [BOOK_ROOT]),
                        ("query beyond the table", [BEYOND, "--db-load", "cache"])):
        good[label] = run("query", *args, "--json", "--rules", RULES, "--db", good_copy).stdout
    good["solve"] = run("solve", BEYOND, "--json", "--rules", RULES, "--db", good_copy).stdout
    for rules, position in ((RULES, IN_TABLE), (RULES, BEYOND), ("kalah", IN_TABLE)):
        out = run("query", position, "--json", "--rules", rules, "--db", good_copy).stdout
        good[("serve", rules, position)] = query_values(out)
    for position in (IN_TABLE, BOOK_ROOT, BEYOND):
        a = json.loads(run("query", position, "--json", "--rules", RULES, "--db", good_copy).stdout)
        good[position] = (a["margin"], [(m["pit"], m["margin"]) for m in a["moves"]])

    cases = damage_cases(data, random.Random(43))
    started = time.time()
    for i, (name, damaged) in enumerate(cases.items()):
        db = os.path.join(WORK, "damaged%d" % i)
        shutil.rmtree(db, ignore_errors=True)
        os.makedirs(db)
        with open(os.path.join(db, "data.mdb"), "wb") as f:
            f.write(damaged)
        before = len(failures)
        # The writer (gen) comes last: it may repair nothing, but changes the file.
        check_serve(name, db, good)
        check_python(name, db, good)
        check_cli(name, db, good)
        print("%-70s %s" % (name, "ok" if len(failures) == before else "FAILED"))
    print("%d damaged databases in %.0f s; the Python module %s" % (
        len(cases), time.time() - started,
        "too" if kalah else "not tested (no module in this build)"))
    if failures:
        sys.exit("damaged_db_test: %d failures" % len(failures))


main()
