# The Python module kalah against the kalah binary on a 6-pit kalah <= 8 table (pytest).
# Environment: PYTHONPATH holds the module, KALAH_BINARY the binary, KALAH_TEST_DB the database.
import json
import os
import random
import re
import shutil
import subprocess
import threading
import time

import pytest

import kalah

RULES = "kalah"
PITS = 6
MAX_STONES = 8


@pytest.fixture(scope="module")
def binary():
    return os.environ["KALAH_BINARY"]


@pytest.fixture(scope="module")
def db_path():
    return os.environ["KALAH_TEST_DB"]


@pytest.fixture(scope="module")
def db(db_path):
    return kalah.Database(db_path)


def cli_query(binary, db_path, position, rules=RULES):
    out = subprocess.run(
        [binary, "query", "--rules", rules, "--db", db_path, "--json", "--max-time", "0",
         position],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def position_of(south, north, south_kalah, north_kalah, side):
    return "%s,%d/%s,%d %s" % (",".join(map(str, south)), south_kalah,
                               ",".join(map(str, north)), north_kalah, side)


def random_position(rng, stones_in_pits):
    """A position of PITS pits a side with stones_in_pits stones in pits, both sides non-empty."""
    while True:
        cells = [0] * (2 * PITS)
        for _ in range(stones_in_pits):
            cells[rng.randrange(2 * PITS)] += 1
        if any(cells[:PITS]) and any(cells[PITS:]):
            return position_of(cells[:PITS], cells[PITS:], rng.randrange(10),
                               rng.randrange(10), rng.choice("SN"))


def test_module_functions(binary):
    assert kalah.version() == kalah.__version__
    assert kalah.version().count(".") == 1
    assert all(part.isdigit() for part in kalah.version().split("."))
    rule_sets = kalah.rule_sets()
    assert {"wetherell", "kalah", "kalah-empty-capture"} <= set(rule_sets)
    help_text = subprocess.run([binary, "query", "--help"], capture_output=True, text=True).stdout
    listed = re.search(r"rule set: (.*)", help_text).group(1)
    assert re.split(r", | or ", listed.strip()) == rule_sets
    assert kalah.start_position(6, 4) == "4,4,4,4,4,4,0/4,4,4,4,4,4,0 S"
    assert kalah.start_position(4, 3) == "3,3,3,3,0/3,3,3,3,0 S"
    start = kalah.start_position(6, 3)
    assert kalah.play("wetherell", start, 5) == "3,3,3,3,0,4,1/4,3,3,3,3,3,0 N"
    for rules in rule_sets:
        for pit in range(1, 7):
            want = subprocess.run([binary, "move", "--rules", rules, start, str(pit)],
                                  check=True, capture_output=True, text=True).stdout.strip()
            assert kalah.play(rules, start, pit) == want


def test_tables(db, db_path):
    assert db.path == db_path
    assert isinstance(db.tables(), list)
    [table] = db.tables()
    assert (table.rules, table.pits, table.max_stones) == (RULES, PITS, MAX_STONES)
    assert db.table(RULES, PITS) == table
    assert table != "kalah"
    assert db.table(RULES, 5) is None
    assert db.table("wetherell", PITS) is None
    assert "max_stones=8" in repr(table)
    assert kalah.Database().path is None
    assert repr(kalah.Database()) == "Database(None)" and db_path in repr(db)
    assert kalah.Database().tables() == []


def test_values_equal_kalah_query(db, binary, db_path):
    rng = random.Random(7)
    # Inside the table, at its top level, and above it (searched with the table at the leaves).
    positions = [random_position(rng, n) for n in (3, 5, 7, 8, 8, 9, 11)]
    positions.append("0,0,0,0,0,0,20/1,2,0,0,0,3,22 S")  # over: the final margin
    for position in positions:
        want = cli_query(binary, db_path, position)
        answer = db.query(RULES, position, max_time=0)
        assert json.loads(answer.to_json()) == want, position
        assert answer.value.exact and answer.margin == want["margin"]
        assert answer.value.outcome == want["outcome"]
        assert answer.over == want["over"] and answer.source == want["source"]
        assert [m.pit for m in answer.moves] == [m["pit"] for m in want["moves"]]
        for move, want_move in zip(answer.moves, want["moves"]):
            assert move.margin == want_move["margin"]
            assert move.best == want_move["best"] and move.again == want_move["again"]
            assert move.position == want_move["position"] == kalah.play(RULES, position,
                                                                      move.pit)
            assert move.explain == want_move["explain"]
        assert answer.best_moves == [m["pit"] for m in want["moves"] if m["best"]]
        assert db.best_moves(RULES, position) == answer.best_moves
        looked_up = db.lookup(RULES, position)
        if want["source"] in ("database", "rules"):
            assert looked_up is not None and looked_up.to_json() == answer.to_json(), position
        else:
            assert looked_up is None, position
        stones = sum(int(c) for side in position.split()[0].split("/")
                     for c in side.split(",")[:-1])
        if stones <= MAX_STONES:
            assert db.value(RULES, position) == want["margin"], position
        else:
            assert db.value(RULES, position) is None, position
        assert answer.position in repr(answer)


def test_value_outside_the_table_is_none(db):
    assert db.value(RULES, kalah.start_position(6, 4)) is None
    assert db.value(RULES, kalah.start_position(5, 1)) is None  # no 5-pit table
    assert db.value("wetherell", kalah.start_position(6, 1)) is None  # no wetherell table
    assert db.value(RULES, kalah.start_position(6, 1)) is None  # 12 stones in pits
    assert isinstance(db.value(RULES, "1,0,0,0,0,1,0/0,2,0,0,0,0,0 S"), int)


def test_options_close_and_reopen(db_path, tmp_path):
    # A copy: a directory is open at most once in a process, and the fixture holds db_path.
    copy = str(tmp_path / "copy.db")
    shutil.copytree(db_path, copy)
    with kalah.Database(copy, max_stones=4, load="cache", cache_mb=16, tt_mb=8) as capped:
        assert capped.table(RULES, PITS).max_stones == 4
        assert capped.value(RULES, "1,0,0,0,0,1,0/0,2,0,0,0,0,0 S") is not None
        assert capped.value(RULES, "1,1,1,0,0,1,0/0,2,0,0,0,0,0 S") is None  # 6 stones
        assert capped.tt_bytes == 8 << 20
        with pytest.raises(kalah.DatabaseError):
            kalah.Database(copy)
    assert capped.closed
    with pytest.raises(ValueError):
        capped.value(RULES, "1,0,0,0,0,1,0/0,2,0,0,0,0,0 S")
    capped.close()
    reopened = kalah.Database(copy, load="memory")
    assert reopened.table(RULES, PITS).max_stones == MAX_STONES
    assert reopened.value(RULES, "1,1,1,0,0,1,0/0,2,0,0,0,0,0 S") is not None
    reopened.close()


def test_clear_stale_readers_counts_the_freed_slots(db):
    # No reader of this database was killed: nothing to free; without a database, never.
    assert db.clear_stale_readers() == 0
    assert kalah.Database().clear_stale_readers() == 0


@pytest.mark.parametrize("call", [
    lambda db: db.value(RULES, "not a position"),
    lambda db: db.value(RULES, "1,2,3/1,2 S"),
    lambda db: db.query(RULES, "1,0,0,0,0,1,0/0,2,0,0,0,0,0 X"),
    lambda db: db.query("chess", "1,0,0,0,0,1,0/0,2,0,0,0,0,0 S"),
    lambda db: db.value("chess", "1,0,0,0,0,1,0/0,2,0,0,0,0,0 S"),
    lambda db: db.query(RULES, "1,0,0,0,0,1,0/0,2,0,0,0,0,0 S", max_time=-1),
    lambda db: db.best_moves(RULES, "garbage"),
    lambda db: db.lookup(RULES, "garbage"),
    lambda db: kalah.play(RULES, "1,0,0,0,0,1,0/0,2,0,0,0,0,0 S", 2),  # empty pit
    lambda db: kalah.play(RULES, "1,0,0,0,0,1,0/0,2,0,0,0,0,0 S", 7),  # no such pit
    lambda db: kalah.play(RULES, "0,0,0,0,0,0,20/1,2,0,0,0,3,22 S", 1),  # over
    lambda db: kalah.play("chess", kalah.start_position(6, 4), 1),
    lambda db: kalah.play(RULES, "bad", 1),
    lambda db: kalah.Database(db.path, load="sometimes"),
    lambda db: kalah.Database(db.path, cache_mb=-1),
    lambda db: kalah.Database(db.path, max_stones=-2),
])
def test_bad_input_raises_value_error(db, call):
    with pytest.raises(ValueError):
        call(db)


def test_missing_or_foreign_database_raises_database_error(tmp_path):
    assert issubclass(kalah.DatabaseError, RuntimeError)
    assert not issubclass(kalah.DatabaseError, ValueError)
    with pytest.raises(kalah.DatabaseError):
        kalah.Database(str(tmp_path / "missing"))
    with pytest.raises(kalah.DatabaseError):
        kalah.Database(str(tmp_path))  # an empty directory
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "data.mdb").write_bytes(b"not an lmdb file" * 512)
    with pytest.raises(kalah.DatabaseError):
        kalah.Database(str(foreign))


def test_query_under_a_time_limit_gives_bounds(db):
    # Kalah(6,6) cannot be settled in a fraction of a second: proven bounds, never a guess.
    answer = db.query(RULES, kalah.start_position(6, 6), max_time=0.2)
    assert answer.value.lower <= answer.value.upper
    assert not answer.value.exact and answer.margin is None
    as_json = json.loads(answer.to_json())
    assert as_json["margin"] is None and as_json["exact"] is False
    assert (as_json["lower"], as_json["upper"]) == (answer.value.lower, answer.value.upper)
    assert [m.pit for m in answer.moves] == [1, 2, 3, 4, 5, 6]
    for move in answer.moves:
        assert move.value.lower <= move.value.upper
        assert not move.best or move.value.exact
    assert "Value(lower=" in repr(answer.value)


def test_gil_is_released_while_searching():
    db = kalah.Database(tt_mb=16)
    started = threading.Event()
    result = []

    def search():
        started.set()
        result.append(db.query(RULES, kalah.start_position(6, 6), max_time=1.0))

    worker = threading.Thread(target=search)
    worker.start()
    started.wait()
    ticks = 0
    # Counts this thread's turns while the search runs; a search that held the GIL would let
    # it run only after the search returned.
    while worker.is_alive():
        ticks += 1
        if ticks == 10:
            db.close()  # the search under way keeps the database until it returns
        time.sleep(0.005)
    worker.join()
    assert ticks >= 20
    assert result and result[0].value.lower <= result[0].value.upper
    assert db.closed


def test_threads_share_one_database(db, binary, db_path):
    rng = random.Random(11)
    positions = [random_position(rng, 8) for _ in range(8)]
    want = {p: cli_query(binary, db_path, p)["margin"] for p in positions}
    got = {}

    def look_up(position):
        got[position] = db.query(RULES, position).margin

    workers = [threading.Thread(target=look_up, args=(p,)) for p in positions]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert got == want


def test_a_damaged_block_met_by_search_threads_raises_database_error(binary, tmp_path):
    # A 4-pit table with one byte of a stored block changed: a query above the table on several
    # threads meets it and raises, the interpreter lives on.
    path = str(tmp_path / "damaged.db")
    subprocess.run([binary, "gen", "--rules", RULES, "--pits", "4", "--max-stones", "8",
                    "--threads", "1", "--quiet", "--db", path], check=True)
    # The longest live record (mdb_dump: key and value lines in hex) is the top level's blocks;
    # a stretch of its middle found once in the file is changed there.
    dump = subprocess.run(["mdb_dump", path], check=True, capture_output=True, text=True).stdout
    pairs = [line.strip() for line in dump.split("HEADER=END\n", 1)[1].splitlines()
             if line.startswith(" ")]
    record = bytes.fromhex(max(pairs[1::2], key=len))
    needle = record[len(record) // 2:len(record) // 2 + 64]
    data = bytearray(open(os.path.join(path, "data.mdb"), "rb").read())
    at = data.find(needle)
    assert at > 0 and data.find(needle, at + 1) < 0
    data[at] ^= 0x10
    open(os.path.join(path, "data.mdb"), "wb").write(bytes(data))
    with kalah.Database(path, load="cache") as damaged:
        for threads in (2, 3):
            with pytest.raises(kalah.DatabaseError, match="block"):
                damaged.query(RULES, "3,3,3,3,0/3,3,3,3,0 S", max_time=0, threads=threads)
