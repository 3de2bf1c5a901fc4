"""KGP's Kalah as go-kgp plays it (its board.go: Sow, Over, Collect), written out for the script
tests that play or check it: cells from the mover's side, own pits 0..m-1, own store m, the
opponent's pits m+1..2m, its store 2m+1."""


def sow(cells, m, pit):
    """Plays pit (1-based) for the mover; returns whether the mover moves again."""
    stones, pos = cells[pit - 1], pit - 1
    assert stones > 0
    cells[pit - 1] = 0
    while stones:
        pos = (pos + 1) % (2 * m + 2)
        if pos == 2 * m + 1:
            continue
        cells[pos] += 1
        stones -= 1
    if pos == m:
        return True
    if pos < m and cells[pos] == 1 and cells[2 * m - pos] > 0:
        cells[m] += 1 + cells[2 * m - pos]
        cells[pos] = cells[2 * m - pos] = 0
    return False


def over(cells, m):
    total = sum(cells)
    if cells[m] > total // 2 or cells[2 * m + 1] > total // 2:
        return True
    return sum(cells[:m]) == 0 or sum(cells[m + 1:2 * m + 1]) == 0


def collect(cells, m):
    cells[m] += sum(cells[:m])
    cells[2 * m + 1] += sum(cells[m + 1:2 * m + 1])
    for i in list(range(m)) + list(range(m + 1, 2 * m + 1)):
        cells[i] = 0


def flip(cells, m):
    return cells[m + 1:] + cells[:m + 1]


def kgp_board(cells, m):
    """The mover's view as a KGP board: the mover is South."""
    return "<%d,%d,%d,%s>" % (m, cells[m], cells[2 * m + 1],
                              ",".join(map(str, cells[:m] + cells[m + 1:2 * m + 1])))


def notation(cells, m):
    return "%s,%d/%s,%d S" % (",".join(map(str, cells[:m])), cells[m],
                              ",".join(map(str, cells[m + 1:2 * m + 1])), cells[2 * m + 1])
