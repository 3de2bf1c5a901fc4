# Database.values and Database.sample (numpy) against Database.value on a 6-pit kalah <= 8 table
# (pytest). Environment: PYTHONPATH holds the module, KALAH_TEST_DB the database.
import itertools
import os
import random

import numpy as np
import pytest

import kalah

RULES = "kalah"
PITS = 6
MAX_STONES = 8
WIDTH = 2 * PITS + 2


@pytest.fixture(scope="module")
def db():
    with kalah.Database(os.environ["KALAH_TEST_DB"]) as d:
        yield d


def same(got, want):
    """Whether the masked arrays have the same mask and the same data where unmasked (== of
    masked arrays skips masked entries: it cannot tell a wrong mask)."""
    got_mask, want_mask = np.ma.getmaskarray(got), np.ma.getmaskarray(want)
    return (got_mask == want_mask).all() and (np.ma.getdata(got)[~got_mask]
                                              == np.ma.getdata(want)[~want_mask]).all()


def notation(row):
    """The row's position, the side to move as South."""
    m = (len(row) - 2) // 2
    south, north = row[:m + 1], row[m + 1:]
    return "%s/%s S" % (",".join(map(str, south)), ",".join(map(str, north)))


def random_rows(rng, count, most):
    """count boards with 0..most stones in pits (game-over boards among them), kalahs 0..20."""
    rows = []
    for _ in range(count):
        cells = [0] * (2 * PITS)
        for _ in range(rng.randrange(most + 1)):
            cells[rng.randrange(2 * PITS)] += 1
        rows.append(cells[:PITS] + [rng.randrange(21)] + cells[PITS:] + [rng.randrange(21)])
    return rows


def test_values_are_value_of_each_board(db):
    rows = random_rows(random.Random(7), 3000, MAX_STONES + 4)
    got = db.values(RULES, np.array(rows))
    assert isinstance(got, np.ma.MaskedArray) and got.dtype == np.int32 and got.shape == (3000,)
    masked = np.ma.getmaskarray(got)
    over = inside = beyond = 0
    for i, row in enumerate(rows):
        want = db.value(RULES, notation(row))
        if want is None:
            assert masked[i], notation(row)
            beyond += 1
        else:
            assert not masked[i] and int(got[i]) == want, notation(row)
            inside += 1
            over += sum(row[:PITS]) == 0 or sum(row[PITS + 1:-1]) == 0
    assert inside > 1000 and beyond > 500 and over > 50  # every kind of board was asked


def test_values_take_any_integer_array(db):
    rows = random_rows(random.Random(8), 200, MAX_STONES + 2)
    want = db.values(RULES, rows)  # a list of lists
    assert 0 < want.count() < 200  # some boards beyond the table
    for dtype in (np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64):
        assert same(db.values(RULES, np.array(rows, dtype=dtype)), want)
    every_other = np.repeat(np.array(rows), 2, axis=0)[::2]
    assert same(db.values(RULES, np.asfortranarray(every_other)), want)
    assert db.values(RULES, np.zeros((0, WIDTH), dtype=np.int64)).shape == (0,)


@pytest.mark.parametrize("boards, error, words", [
    (np.zeros((3, WIDTH), dtype=np.float64), TypeError, "float64"),
    (np.zeros((3, WIDTH), dtype=bool), TypeError, "bool"),
    (np.zeros(WIDTH, dtype=np.int64), ValueError, "shape (n, 2 * pits + 2)"),
    (np.zeros((3, WIDTH - 1), dtype=np.int64), ValueError, "(3, 13)"),
    (np.zeros((3, 2 * 13 + 2), dtype=np.int64), ValueError, "1 <= pits <= 12"),
    (np.zeros((3, 2 * 7 + 2), dtype=np.int64), ValueError, "no kalah table of 7 pits"),
])
def test_values_refuse_a_wrong_array(db, boards, error, words):
    with pytest.raises(error, match=None) as e:
        db.values(RULES, boards)
    assert words in str(e.value)


@pytest.mark.parametrize("column, count, words", [
    (2, -1, "row 3: column 2 (the side to move's pit 3) holds -1 stones"),
    (9, 256, "row 3: column 9 (the opponent's pit 3) holds 256 stones; a pit holds 0..255"),
    (13, -5, "row 3: column 13 (the opponent's kalah) holds -5 stones"),
    (6, 70000, "row 3: column 6 (the side to move's kalah) holds 70000"),
])
def test_values_name_the_bad_row(db, column, count, words):
    boards = np.ones((5, WIDTH), dtype=np.int64)
    boards[3, column] = count
    with pytest.raises(ValueError) as e:
        db.values(RULES, boards)
    assert words in str(e.value)


def test_values_refuse_a_board_of_too_many_stones(db):
    boards = np.ones((5, WIDTH), dtype=np.int64)
    boards[4, PITS] = boards[4, -1] = 40000
    with pytest.raises(ValueError) as e:
        db.values(RULES, boards)
    assert "row 4: holds 80012 stones in all; at most 65535" in str(e.value)


def test_values_refuse_unknown_rules_no_table_and_a_closed_database(db):
    with pytest.raises(ValueError, match="unknown rule set"):
        db.values("no-such-rules", np.ones((1, WIDTH), dtype=np.int64))
    d = kalah.Database()
    with pytest.raises(ValueError, match="no kalah table of 6 pits"):
        d.values(RULES, np.ones((1, WIDTH), dtype=np.int64))
    d.close()
    with pytest.raises(ValueError, match="closed"):
        d.values(RULES, np.ones((1, WIDTH), dtype=np.int64))


def test_sample_draws_inside_a_level_with_exact_margins(db):
    for level in range(2, MAX_STONES + 1):
        boards, margins = db.sample(RULES, PITS, level, 500, seed=level)
        assert boards.shape == (500, WIDTH) and margins.shape == (500,)
        assert boards.dtype == np.int32 and margins.dtype == np.int32
        own, opp = boards[:, :PITS], boards[:, PITS + 1:-1]
        assert (own.sum(axis=1) + opp.sum(axis=1) == level).all()
        assert (own.sum(axis=1) > 0).all() and (opp.sum(axis=1) > 0).all()
        kalahs = boards[:, [PITS, -1]]
        assert (kalahs.sum(axis=1) == 2 * PITS * 4 - level).all()
        assert (kalahs <= PITS * 4).all()
        assert same(db.values(RULES, boards), margins)
        for row, margin in zip(boards[:20].tolist(), margins[:20].tolist()):
            assert db.value(RULES, notation(row)) == margin


def test_sample_is_the_seed_s_and_uniform(db):
    a = db.sample(RULES, PITS, 6, 300, seed=5)
    b = db.sample(RULES, PITS, 6, 300, seed=5)
    c = db.sample(RULES, PITS, 6, 300, seed=6)
    assert (a[0] == b[0]).all() and (a[1] == b[1]).all() and not (a[0] == c[0]).all()
    assert db.sample(RULES, PITS, 6, 0)[0].shape == (0, WIDTH)
    # 2 stones leaving both sides stones: 36 arrangements (a pit of each side), equally likely.
    boards, _ = db.sample(RULES, PITS, 2, 36000, seed=9)
    counts = {}
    for row in boards[:, list(range(PITS)) + list(range(PITS + 1, 2 * PITS + 1))].tolist():
        counts[tuple(row)] = counts.get(tuple(row), 0) + 1
    want = {tuple(1 if c in (i, PITS + j) else 0 for c in range(2 * PITS))
            for i, j in itertools.product(range(PITS), repeat=2)}
    assert set(counts) == want
    assert max(abs(n - 1000) for n in counts.values()) < 5 * 31.6  # 5 standard deviations


@pytest.mark.parametrize("args, words", [
    ((RULES, PITS, 1, 10), "stones_in_pits must be in [2, 8]"),
    ((RULES, PITS, MAX_STONES + 1, 10), "stones_in_pits must be in [2, 8]"),
    ((RULES, 7, 4, 10), "no kalah table of 7 pits"),
    ((RULES, PITS, 4, -1), "n must be >= 0"),
    (("no-such-rules", PITS, 4, 10), "unknown rule set"),
])
def test_sample_refuses_bad_arguments(db, args, words):
    with pytest.raises(ValueError) as e:
        db.sample(*args)
    assert words in str(e.value)
