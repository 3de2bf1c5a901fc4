#!/usr/bin/env python3
"""Damaged databases, made here from a good one, met by every command that reads a database, by
kalah serve and by the Python module: each answers an error naming the database (exit status 1,
one line; HTTP 500; kalah.DatabaseError) or the value the good database gives, never a signal,
never a wrong exact value.

Two parts: `pages` damages the bytes of data.mdb (truncations, flipped bits in blocks, index pages,
book entries and records); `records` moves whole records (block groups and blocks swapped within a
level, across levels and across tables, copied, restored from an earlier build; level records
swapped; a level moved whole), and the error must then also name the level. The records' keys,
fields, block groups and storage order come from kalah_records (tests/db/records_tool.cpp, the
format's own code; its path in KALAH_RECORDS): this script encodes no layout of the database.

Usage: damaged_db_test.py KALAH_BINARY WORK_DIR [RANDOM_COPIES] [pages|records]
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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from checks import abort, fail, failed, finish  # noqa: E402
import servers  # noqa: E402

KALAH, WORK = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
RANDOM_COPIES = int(sys.argv[3]) if len(sys.argv) > 3 else 12
PART = sys.argv[4] if len(sys.argv) > 4 else "pages"
# KALAH_PYTHON_MODULE=1: the module is built beside the binary and must be tested.
if os.environ.get("KALAH_PYTHON_MODULE") == "1":
    import kalah
else:
    kalah = None

RECORDS = os.environ.get("KALAH_RECORDS")
if not RECORDS:
    abort("damaged_db_test: KALAH_RECORDS must name the kalah_records tool")


def records(*args):
    """kalah_records's output for args (tests/db/records_tool.cpp says what each command does)."""
    r = subprocess.run([RECORDS, *map(str, args)], capture_output=True, text=True)
    if r.returncode != 0:
        abort("damaged_db_test: kalah_records %s: %s" % (" ".join(map(str, args)), r.stderr))
    return r.stdout


def key(*args):
    return bytes.fromhex(records("key", *args).strip())


RULES, PITS = "wetherell", 4
IN_TABLE = "1,2,1,0,0/2,1,0,1,0 S"     # 8 stones: the levels alone
BOOK_ROOT = "2,2,2,2,0/2,2,2,2,0 S"    # 16 stones: the book
BEYOND = "3,2,1,2,0/2,1,2,0,0 N"       # 13 stones: a search with the levels at its leaves
def run(*args, timeout=300, stdin=None):
    return subprocess.run([KALAH, *args], capture_output=True, text=True, timeout=timeout,
                          input=stdin)


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


def group_value(lmdb, n):
    return lmdb.values[key("group", RULES, PITS, n, 0)]


def book_entries(lmdb):
    prefix = key("book", RULES, PITS)
    return sorted(k for k in lmdb.values if k.startswith(prefix))


def damage_cases(data, rng):
    lmdb = Lmdb(bytes(data))
    cases = {}
    cases["truncated to half"] = data[:len(data) // 2]
    cases["truncated to 3 pages"] = data[:3 * lmdb.psize]
    cases["empty data.mdb"] = bytearray()
    d = bytearray(data)
    at, size = group_value(lmdb, 10)
    flip(d, at + size // 2)
    cases["a flipped byte in a wetherell block"] = d
    d = bytearray(data)
    node, _ = lmdb.root_children[-1]
    overflow_page = group_value(lmdb, 10)[0] // lmdb.psize
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
    at, _ = lmdb.values[key("level", RULES, PITS, 7)]
    flip(d, at + int(records("field", "level-complete")), 0)
    cases["a level record's completion mark cleared"] = d
    d = bytearray(data)
    at, _ = lmdb.values[key("table", RULES, PITS)]
    # levels 0..12 claimed complete: 11 and 12 are absent
    struct.pack_into("<h", d, at + int(records("field", "table-complete-through")), 12)
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
    # dump prints every record or stops at a damaged one in one line (random bits may land in a
    # page's unused bytes), never crashes.
    r = run("dump", "--db", db)
    if r.returncode != 0 and (r.returncode != 1 or r.stderr.count("\n") != 1 or
                              db not in r.stderr):
        fail("%s: dump: exit %d, stderr %r" % (name, r.returncode, r.stderr[-300:]))
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


def named(error, db, names):
    """Whether an error names the database and, when given, the damaged level (`names`)."""
    return db in error and (names is None or names in error)


def check_python(name, db, good, asks, names=None):
    """The Python module's answers to asks [(rules, position)]: good[(rules, position)] (as
    query_values) or a DatabaseError naming the database."""
    if kalah is None:
        return
    try:
        with kalah.Database(db, load="cache") as d:
            for rules, position in asks:
                margin, _, moves = good[(rules, position)]
                try:
                    a = d.query(rules, position, max_time=60, threads=2)
                    if (a.margin, [(m.pit, m.margin) for m in a.moves]) != (
                            margin, [(pit, value) for pit, value, _ in moves]):
                        fail("%s: Python query %s: a wrong value %s" % (name, position, a.margin))
                except kalah.DatabaseError as e:
                    if not named(str(e), db, names):
                        fail("%s: Python query: DatabaseError not naming the damage: %s"
                             % (name, e))
            check_python_values(name, d, db, good, asks, names)
    except kalah.DatabaseError as e:
        if not named(str(e), db, names):
            fail("%s: Python open: DatabaseError not naming the damage: %s" % (name, e))


def board_row(position):
    """The position as a row of Database.values(): the side to move's pits and kalah first."""
    halves, side = position.split()
    south, north = ([int(x) for x in h.split(",")] for h in halves.split("/"))
    return south + north if side == "S" else north + south


def check_python_values(name, d, db, good, asks, names):
    """Database.values() of the asks, a position a call: good's margin (masked only beyond the
    table's levels, TABLE_TOPS), else a DatabaseError naming the database."""
    for rules, position in asks:
        row = board_row(position)
        m = len(row) // 2 - 1
        beyond = sum(row) - row[m] - row[-1] > TABLE_TOPS[rules, m]
        try:
            got = d.values(rules, [row])
            if got.mask[0] != beyond:
                fail("%s: Python values %s: %s" % (name, position, "not masked beyond the table"
                                                    if beyond else "masked inside the table"))
            elif not beyond and int(got[0]) != good[(rules, position)][0]:
                fail("%s: Python values %s: a wrong value %s" % (name, position, got[0]))
        except kalah.DatabaseError as e:
            if not named(str(e), db, names):
                fail("%s: Python values: DatabaseError not naming the damage: %s" % (name, e))


def start_server(db):
    proc, port, _ = servers.start(KALAH, "serve", "--db", db, stderr=subprocess.PIPE)
    if port is None:
        proc.wait(timeout=30)
    return proc, port


def get(port, rules, position):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("GET", "/api/v1/query?" + urllib.parse.urlencode(
        {"rules": rules, "position": position, "max_time": 30}))
    res = conn.getresponse()
    body = res.read().decode("utf-8", "replace")
    conn.close()
    return res.status, body


def check_serve(name, db, good, asks, names=None):
    """kalah serve's answers to asks: good[(rules, position)] or 500 naming the database."""
    proc, port = start_server(db)
    if port is None:
        err = proc.stderr.read()
        if proc.returncode != 1 or err.count("\n") != 1 or not named(err, db, names):
            fail("%s: serve did not start and did not say why in one line: exit %s, %r"
                 % (name, proc.returncode, err[-300:]))
        return
    try:
        for rules, position in asks:
            try:
                status, body = get(port, rules, position)
            except (OSError, http.client.HTTPException) as e:
                fail("%s: serve %s %s: no answer (%s), exit %s" % (name, rules, position, e,
                                                                   proc.poll()))
                return
            if status == 200:
                if query_values(body) != good[(rules, position)]:
                    fail("%s: serve %s %s: a wrong value: %s" % (name, rules, position, body[:300]))
            elif status != 500 or not named(body, db, names):
                fail("%s: serve %s %s: status %d, %s" % (name, rules, position, status, body[:300]))
        if proc.poll() is not None:
            fail("%s: serve died (exit %s)" % (name, proc.returncode))
    finally:
        proc.terminate()
        proc.wait(timeout=30)


PAGES_TOP = 10  # the pages part's tables: levels 0..10
PAGE_ASKS = {"python": [(RULES, IN_TABLE), (RULES, BOOK_ROOT), (RULES, BEYOND)],
             "serve": [(RULES, IN_TABLE), (RULES, BEYOND), ("kalah", IN_TABLE)]}


def pages_part():
    good_db = os.path.join(WORK, "good")
    for rules in (RULES, "kalah"):
        subprocess.run([KALAH, "gen", "--rules", rules, "--pits", str(PITS), "--max-stones",
                        str(PAGES_TOP),
                        "--quiet", "--db", good_db], check=True)
    subprocess.run([KALAH, "solve", "--rules", RULES, "--db", good_db, "--book", "--book-plies",
                    "4", "--quiet", BOOK_ROOT], check=True, capture_output=True)
    data = bytearray(open(os.path.join(good_db, "data.mdb"), "rb").read())
    if Lmdb(bytes(data)).roots[1] is None or not Lmdb(bytes(data)).root_children:
        abort("damaged_db_test: the good database's main tree has no branch root")

    good = {}
    good_copy = os.path.join(WORK, "good_copy")  # the answers, from a copy like the damaged ones
    shutil.copytree(good_db, good_copy)
    for label, args in (("query in the table", [IN_TABLE]),
                        ("query of the book's root", [BOOK_ROOT]),
                        ("query beyond the table", [BEYOND, "--db-load", "cache"])):
        good[label] = run("query", *args, "--json", "--rules", RULES, "--db", good_copy).stdout
    good["solve"] = run("solve", BEYOND, "--json", "--rules", RULES, "--db", good_copy).stdout
    for rules, position in set(PAGE_ASKS["python"] + PAGE_ASKS["serve"]):
        out = run("query", position, "--json", "--rules", rules, "--db", good_copy).stdout
        good[(rules, position)] = query_values(out)

    cases = damage_cases(data, random.Random(43))
    started = time.time()
    for i, (name, damaged) in enumerate(cases.items()):
        db = os.path.join(WORK, "damaged%d" % i)
        shutil.rmtree(db, ignore_errors=True)
        os.makedirs(db)
        with open(os.path.join(db, "data.mdb"), "wb") as f:
            f.write(damaged)
        before = failed()
        # The writer (gen) comes last: it may repair nothing, but changes the file.
        check_serve(name, db, good, PAGE_ASKS["serve"])
        check_python(name, db, good, PAGE_ASKS["python"])
        check_cli(name, db, good)
        print("%-70s %s" % (name, "ok" if failed() == before else "FAILED"))
    print("%d damaged databases in %.0f s; the Python module %s" % (
        len(cases), time.time() - started,
        "too" if kalah else "not tested (no module in this build)"))


# --- The records part: whole records moved (kalah_records copy).

W_TOP, K_TOP = 14, 9   # wetherell m=6 <= 14 (level 14: two group records), kalah <= 9
# The last level of each table the parts build, by (rules, pits).
TABLE_TOPS = {(RULES, PITS): PAGES_TOP, ("kalah", PITS): PAGES_TOP, ("wetherell", 6): W_TOP,
              ("kalah", 6): K_TOP}


def layout(db, rules, n):
    """Level n's entries, blocks and blocks a group record."""
    f = records("layout", db, rules, 6, n).split()
    return {f[i]: int(f[i + 1]) for i in range(0, len(f), 2)}


def record_cases(good_db, earlier_db):
    """name -> (edits, rule set, level, damaged blocks): each a whole-record misplacement, as
    kalah_records copy's edits."""
    per_group = layout(good_db, "wetherell", 14)["per-group"]
    w14_last = layout(good_db, "wetherell", 14)["blocks"] - 1
    k9_last = layout(good_db, "kalah", 9)["blocks"] - 1
    if w14_last < per_group:
        abort("damaged_db_test: wetherell level 14 fits one group record")
    cases = {}
    cases["level 14's two group records swapped"] = (
        ["swap", "group:wetherell:6:14:0", "group:wetherell:6:14:1"], "wetherell", 14,
        [0, per_group])
    cases["level 9's blocks 0 and 1 exchanged in their group"] = (
        ["block", "block:wetherell:6:9:0", "block:wetherell:6:9:1",
         "block", "block:wetherell:6:9:1", "block:wetherell:6:9:0"], "wetherell", 9, [0, 1])
    cases["a block of level 13 over one of level 14"] = (
        ["block", "block:wetherell:6:14:5", "block:wetherell:6:13:5"], "wetherell", 14, [5])
    cases["level 9's group swapped between the two tables"] = (
        ["swap", "group:wetherell:6:9:0", "group:kalah:6:9:0"], "kalah", 9, [0, k9_last])
    cases["a block copied over another of its level"] = (
        ["block", "block:wetherell:6:14:10", "block:wetherell:6:14:11"], "wetherell", 14, [10])
    cases["a group restored from an earlier build"] = (
        ["from", earlier_db, "group:wetherell:6:14:1"], "wetherell", 14, [per_group, w14_last])
    cases["the level records of two tables swapped"] = (
        ["swap", "level:wetherell:6:9", "level:kalah:6:9"], "kalah", 9, [0, k9_last])
    cases["level 9 moved whole to the other table"] = (
        ["swap", "level:wetherell:6:9", "level:kalah:6:9",
         "swap", "group:wetherell:6:9:0", "group:kalah:6:9:0"], "kalah", 9, [0, k9_last])
    return cases


def block_positions(db, rules, n, b, count):
    return records("positions", db, rules, 6, n, b, count).split("\n")[:-1]


def check_batch(name, db, rules, positions, good, names, load_mode):
    """kalah query - of positions: each answer good's; an error only after right answers, in one
    line naming the database and the level."""
    r = run("query", "-", "--json", "--rules", rules, "--db", db, "--db-load", load_mode,
            "--max-time", "60", stdin="\n".join(positions) + "\n")
    answers = [query_values(line) for line in r.stdout.splitlines()]
    want = [good[(rules, p)] for p in positions]
    where = "%s: query %s (%s)" % (name, rules, load_mode)
    if answers != want[:len(answers)]:
        fail(where + ": a wrong value")
    if r.returncode == 0 and len(answers) != len(positions):
        fail(where + ": %d answers of %d" % (len(answers), len(positions)))
    elif r.returncode != 0 and (r.returncode != 1 or r.stderr.count("\n") != 1 or
                                not named(r.stderr, db, names)):
        fail(where + ": exit %d, stderr %r" % (r.returncode, r.stderr[-300:]))
    return r.returncode != 0


def check_records_cli(name, db, good, rules, positions, names):
    refused = check_batch(name, db, rules, positions[rules], good, names, "cache")
    if not refused:
        fail("%s: query: the damaged blocks answered" % name)
    check_batch(name, db, rules, positions[rules], good, names, "memory")
    other = "kalah" if rules == "wetherell" else "wetherell"
    check_batch(name, db, other, positions[other], good, None, "cache")
    top = W_TOP if rules == "wetherell" else K_TOP
    for label, args in (("solve", ["solve", good["beyond", rules], "--json", "--threads", "2"]),
                        ("play --exact", ["play", "--self", "--exact", "--no-random",
                                          "--threads", "2", "--position", good["beyond", rules]])):
        r = run(*args, "--rules", rules, "--db", db)
        if r.returncode == 0 and label == "solve" and (
                json.loads(r.stdout)["margin"] != good["solve", rules]):
            fail("%s: solve: a wrong value %s" % (name, r.stdout[:300]))
        elif r.returncode != 0 and (r.returncode != 1 or r.stderr.count("\n") != 1 or
                                    not named(r.stderr, db, names)):
            fail("%s: %s: exit %d, stderr %r" % (name, label, r.returncode, r.stderr[-300:]))
    # dump checks every record: each moved one is an error naming its level.
    r = run("dump", "--db", db)
    if r.returncode != 1 or r.stderr.count("\n") != 1 or not named(r.stderr, db, names):
        fail("%s: dump: exit %d, stderr %r" % (name, r.returncode, r.stderr[-300:]))
    for label, args in (("stats", ["stats"]), ("verify", ["verify", "--quiet"]),
                        ("gen", ["gen", "--max-stones", str(top + 1), "--quiet"])):
        r = run(*args, "--rules", rules, "--pits", "6", "--db", db)
        said = r.stdout + r.stderr
        if r.returncode != 1 or not named(said, db, names):
            fail("%s: %s: exit %d, said %r" % (name, label, r.returncode, said[-300:]))


def records_part():
    good_db, earlier_db = os.path.join(WORK, "good"), os.path.join(WORK, "earlier")
    for db in (earlier_db, good_db):
        for rules, top in (("wetherell", W_TOP), ("kalah", K_TOP)):
            subprocess.run([KALAH, "gen", "--rules", rules, "--pits", "6", "--max-stones",
                            str(top), "--quiet", "--db", db], check=True)
    cases = record_cases(good_db, earlier_db)

    # Positions in every damaged block of each case and in a sound block beside them.
    positions = {"wetherell": [], "kalah": []}
    for _, rules, n, blocks in cases.values():
        for b in blocks + [2 if n == 14 else 1]:
            positions[rules] += [p for p in block_positions(good_db, rules, n, b, 6)
                                 if p not in positions[rules]]
    good = {("beyond", "wetherell"): "2,1,2,1,1,2,0/1,2,1,2,1,1,0 S",  # 17 stones: levels 14, 13, ...
            ("beyond", "kalah"): "1,1,1,1,1,1,0/1,1,1,1,1,1,0 S"}     # 12 stones: levels 9, 8, ...
    for rules in positions:
        r = run("query", "-", "--json", "--rules", rules, "--db", good_db,
                stdin="\n".join(positions[rules]) + "\n")
        for position, line in zip(positions[rules], r.stdout.splitlines()):
            good[(rules, position)] = query_values(line)
        if len(r.stdout.splitlines()) != len(positions[rules]):
            abort("damaged_db_test: the good database did not answer: " + r.stderr)
        good["solve", rules] = json.loads(run("solve", good["beyond", rules], "--json", "--rules",
                                              rules, "--db", good_db).stdout)["margin"]

    started = time.time()
    for i, (name, (edits, rules, n, blocks)) in enumerate(cases.items()):
        db = os.path.join(WORK, "moved%d" % i)
        records("copy", good_db, db, *edits)
        before = failed()
        names = "level %d" % n
        asks = [(rules, p) for p in positions[rules][::7]]
        check_serve(name, db, good, asks, names)
        check_python(name, db, good, asks, names)
        check_records_cli(name, db, good, rules, positions, names)
        print("%-70s %s" % (name, "ok" if failed() == before else "FAILED"))
    print("%d databases with records moved in %.0f s; the Python module %s" % (
        len(cases), time.time() - started,
        "too" if kalah else "not tested (no module in this build)"))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    if PART == "pages":
        pages_part()
    elif PART == "records":
        records_part()
    else:
        abort("damaged_db_test: unknown part %r (pages, records)" % PART)
    print("damaged_db_test: %d failures" % failed())
    finish()


main()
