#!/usr/bin/env python3
"""kalah referee against bots written here (usage: referee_test.py KALAH DB).

DB holds a 6-pit kalah table of levels 0..8. One referee serves 50 bots at once: bots that answer
the best move, the first legal pit, nothing, an illegal pit, garbage (a 1 MB line among it), that
disconnect mid-state or never choose a mode; bots that evaluate (the exact margin, a constant)
and bots that solve the verify mode's problems (right with and without go-kgp's final sweep,
wrong about the repeat flag). Every report is checked against `kalah query --json` of the same
positions. Then a referee playing games against a bot, --positions-file, and `kalah grade`.
"""
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
from checks import abort, check, finish  # noqa: E402
import kgp_rules  # noqa: E402
import servers  # noqa: E402

KALAH, DB = sys.argv[1], sys.argv[2]
POSITIONS = 10
MOVE_TIME = 2  # seconds: room for the bots' own kalah query calls under a sanitizer build
_query_cache = {}
_query_lock = threading.Lock()


def notation(board):
    """A KGP board <m,SK,NK,s1..sm,n1..nm> in our notation, South to move."""
    v = [int(x) for x in board.strip("<>").split(",")]
    m = v[0]
    south, north = v[3:3 + m], v[3 + m:3 + 2 * m]
    return ",".join(map(str, south + [v[1]])) + "/" + ",".join(map(str, north + [v[2]])) + " S"


def kgp_board(position):
    """Our notation (South's pits first, whoever is to move) as the KGP board."""
    a, b = position.split()[0].split("/")
    south, north = [int(x) for x in a.split(",")], [int(x) for x in b.split(",")]
    m = len(south) - 1
    return "<%s>" % ",".join(map(str, [m, south[m], north[m]] + south[:m] + north[:m]))


def query(position):
    with _query_lock:
        if position in _query_cache:
            return _query_cache[position]
    out = subprocess.run([KALAH, "query", position, "--rules", "kalah", "--db", DB, "--json"],
                         capture_output=True, text=True, check=True).stdout
    answer = json.loads(out)
    with _query_lock:
        _query_cache[position] = answer
    return answer


def parse(line):
    """(id, ref, name, args) of a KGP line; args split at spaces, quotes removed."""
    words = line.split()
    ident = ref = None
    if words and words[0][0].isdigit() or words and words[0].startswith("@"):
        head = words.pop(0)
        i, _, r = head.partition("@")
        ident = int(i) if i else None
        ref = int(r) if r else None
    return ident, ref, words[0], [w.strip('"') for w in words[1:]]


class Bot(threading.Thread):
    """A KGP client: greets, asks for `mode`, calls on_request(name, args) for each state or
    problem and sends the lines it returns (each referencing the request)."""

    def __init__(self, port, name, mode, on_request, before_mode=None, stop_after=None):
        super().__init__(daemon=True)
        self.port, self.name, self.mode = port, name, mode
        self.on_request, self.before_mode, self.stop_after = on_request, before_mode, stop_after
        self.requests = 0
        self.received = []  # the names of the commands the referee sent
        self.error = None

    def run(self):
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=60)
            f = sock.makefile("rwb")
            next_id = [2]

            def send(text, ref=None):
                head = str(next_id[0]) + ("@%d" % ref if ref is not None else "")
                next_id[0] += 2
                f.write((head + " " + text + "\r\n").encode())
                f.flush()

            for raw in f:
                ident, ref, name, args = parse(raw.decode().strip())
                self.received.append(name)
                if name == "kgp":
                    send('set info:name "%s"' % self.name)
                    if self.before_mode:
                        self.before_mode(f)
                    if self.mode:
                        send("mode " + self.mode)
                elif name in ("state", "problem"):
                    self.requests += 1
                    if self.stop_after and self.requests == self.stop_after:
                        sock.close()
                        return
                    for line in self.on_request(name, args):
                        send(line, ref=ident)
                elif name == "goodbye":
                    break
            sock.close()
        except Exception as e:  # noqa: BLE001 - reported by the test
            self.error = repr(e)


def legal_pits(board):
    v = [int(x) for x in board.strip("<>").split(",")]
    return [i + 1 for i in range(v[0]) if v[3 + i] > 0]


def best_bot(_, args):
    answer = query(notation(args[0]))
    return ["move %d" % next(m["pit"] for m in answer["moves"] if m["best"]), "yield"]


def first_bot(_, args):
    return ["move %d" % legal_pits(args[0])[0], "yield"]


def slow_bot(_, args):
    return []


def illegal_bot(_, args):
    v = [int(x) for x in args[0].strip("<>").split(",")]
    empty = [i + 1 for i in range(v[0]) if v[3 + i] == 0]
    return ["move %d" % (empty[0] if empty else v[0] + 1), "yield"]


def garbage_bot(_, args):
    junk = "".join(random.choice("<>@,\"x 17") for _ in range(40))
    return ["%s" % junk, "move", "move seven", "x" * (1 << 20)] + first_bot(_, args)


def eval_exact_bot(_, args):
    return ["eval %d.5" % query(notation(args[0]))["margin"], "yield"]


def eval_const_bot(_, args):
    return ["eval 0.0", "yield"]


def verify_swept_bot(_, args):
    v = [int(x) for x in args[0].strip("<>").split(",")]
    m, pit = v[0], int(args[1])
    cells = v[3:3 + m] + [v[1]] + v[3 + m:3 + 2 * m] + [v[2]]
    again = kgp_rules.sow(cells, m, pit)
    if kgp_rules.over(cells, m):  # go-kgp sweeps a finished game
        kgp_rules.collect(cells, m)
    return ["solution %s %d" % (kgp_rules.kgp_board(cells, m), 1 if again else 0)]


def verify_query_bot(_, args):
    move = next(x for x in query(notation(args[0]))["moves"] if x["pit"] == int(args[1]))
    return ["solution %s %d" % (kgp_board(move["position"]), 1 if move["again"] else 0)]


def verify_wrong_bot(_, args):
    line = verify_query_bot(_, args)[0]
    return [line[:-1] + ("0" if line.endswith("1") else "1")]


def verify_huge_bot(_, args):
    return ["solution <%s> 0" % ",".join(["1"] * 8000)]


def silent(f):
    time.sleep(12)


def start_referee(*args):
    proc, port, line = servers.start(KALAH, "referee", "--db", DB, "--json", *args,
                                     stderr=subprocess.PIPE)
    if port is None:
        proc.kill()
        abort("referee test: kalah referee did not start: " + repr(line) + proc.stderr.read())
    return proc, port


def reports_of(proc, timeout):
    out, err = proc.communicate(timeout=timeout)
    check(proc.returncode == 0, "the referee exits 0 (stderr: %s)" % err.strip()[:300])
    return {r["name"]: r for r in (json.loads(line) for line in out.splitlines())}


def one_session(name, mode, answer, *referee_args, timeout=120):
    """The report of one bot's session with a referee of `--sessions 1` and referee_args."""
    proc, port = start_referee("--sessions", "1", *referee_args)
    bot = Bot(port, name, mode, answer)
    bot.start()
    bot.join(timeout)
    return reports_of(proc, timeout)[name]


def expected_grade(position, pit):
    """(verdict, best, given away, outcome changed) of pit in position by kalah query."""
    answer = query(position)
    move = next((m for m in answer["moves"] if m["pit"] == pit), None)
    if move is None:
        return ("illegal", None, None, None)
    sign = lambda x: (x > 0) - (x < 0)  # noqa: E731
    return ("graded", move["best"], answer["margin"] - move["margin"],
            sign(move["margin"]) != sign(answer["margin"]))


def check_moves(report, what, expect_pit):
    """Every graded move of the report as kalah query grades it; expect_pit(position) -> pit."""
    moves = report["moves"]["moves"]
    ok = len(moves) == POSITIONS
    for m in moves:
        want = expected_grade(m["position"], expect_pit(m["position"]))
        got = (m["verdict"], m.get("best"), m.get("given_away"), m.get("changes_outcome"))
        if want[0] == "illegal":
            got = (m["verdict"], None, None, None)
        ok = ok and got == want and m["proven"]
    check(ok, "%s: %d states, each graded as kalah query grades it" % (what, len(moves)))


def first_pit(position):
    return legal_pits(kgp_board(position))[0]


def main():
    random.seed(7)
    proc, port = start_referee("--positions", str(POSITIONS), "--move-time", str(MOVE_TIME),
                               "--sessions", "50", "--stones-in-pits", "2-8",
                               "--report", os.path.join(tempfile.mkdtemp(), "reports.jsonl"))
    specials = [("best", "freeplay", best_bot, {}), ("slow", "freeplay", slow_bot, {}),
                ("illegal", "freeplay", illegal_bot, {}), ("garbage", "freeplay", garbage_bot, {}),
                ("leaver", "freeplay", first_bot, {"stop_after": 3}),
                ("silent", None, slow_bot, {"before_mode": silent}),
                ("eval-exact", "eval", eval_exact_bot, {}), ("eval-const", "eval", eval_const_bot, {}),
                ("verify-swept", "verify", verify_swept_bot, {}),
                ("verify-query", "verify", verify_query_bot, {}),
                ("verify-wrong", "verify", verify_wrong_bot, {}),
                ("verify-huge", "verify", verify_huge_bot, {}),
                ("a" * 99 + "\u00e9", "freeplay", first_bot, {}),
                ("two\\nlines", "freeplay", first_bot, {})]
    bots = [Bot(port, name, mode, fn, **kw) for name, mode, fn, kw in specials]
    bots += [Bot(port, "first-%d" % i, "freeplay", first_bot) for i in range(50 - len(specials))]
    for b in bots:
        b.start()
    for b in bots:
        b.join(120)
    check(all(b.error is None for b in bots), "every bot ran: %s" % [b.error for b in bots if b.error])
    reports = reports_of(proc, 120)
    check(len(reports) == 50, "50 sessions reported (%d)" % len(reports))

    check_moves(reports["best"], "best", lambda p: next(
        m["pit"] for m in query(p)["moves"] if m["best"]))
    best = reports["best"]["moves"]
    check(best["best"] == POSITIONS and best["worst_given_away"] == 0, "best: 100 % best moves")
    firsts = [r for n, r in reports.items() if n.startswith("first-")]
    for r in firsts[:1]:
        check_moves(r, "first legal pit", first_pit)
    check(all(r["moves"]["moves"] == firsts[0]["moves"]["moves"] for r in firsts),
          "the %d first-pit bots' reports are identical" % len(firsts))
    check(reports["slow"]["moves"]["no_move"] == POSITIONS, "slow: every state without a move")
    check(reports["illegal"]["moves"]["illegal"] == POSITIONS, "illegal: every move illegal")
    g = reports["garbage"]
    check_moves(g, "garbage, then the first pit", first_pit)
    check(g["malformed_lines"] >= 3 * POSITIONS,
          "garbage: its lines counted malformed (%d)" % g["malformed_lines"])
    leaver = reports["leaver"]
    check(leaver["ended"] == "disconnected" and leaver["moves"]["states"] == 2,
          "leaver: ended disconnected after 2 graded states (%s, %d)"
          % (leaver["ended"], leaver["moves"]["states"]))
    check(reports["silent"]["ended"].startswith("no mode within"), "silent: ended without a mode")
    silent_bot = next(b for b in bots if b.name == "silent")
    check(silent_bot.received[-2:] == ["error", "goodbye"], "silent: told so with error, then goodbye")
    check("a" * 99 in reports, "a name cut inside a UTF-8 character: reported under its first 99 bytes")
    check("two?lines" in reports, "a newline in a name: reported as '?'")
    huge = reports["verify-huge"]["verify"]["errors"]
    check(len(huge) == POSITIONS and all(len(e["why"]) <= 300 for e in huge),
          "verify-huge: each 16 kB answer's error cut to 300 bytes")

    e = reports["eval-exact"]["evaluations"]
    check(e["ranked"] == POSITIONS and abs(e["kendall_tau_b"] - 1) < 1e-9
          and abs(e["spearman_rho"] - 1) < 1e-9, "eval-exact: tau-b and rho are 1")
    check(all(s["margin"] == query(s["position"])["margin"] for s in e["states"]),
          "eval: each state's margin is kalah query's")
    c = reports["eval-const"]["evaluations"]
    check(c["answered"] == POSITIONS and c["kendall_tau_b"] is None and c["spearman_rho"] is None,
          "eval-const: the correlations are undefined")
    for name in ("verify-swept", "verify-query"):
        v = reports[name]["verify"]
        check(v["problems"] == POSITIONS and v["solved"] == POSITIONS and not v["errors"],
              "%s: every solution accepted" % name)
    wrong = reports["verify-wrong"]["verify"]
    check(wrong["errors"] and all("repeat" in x["why"] or "passes the turn" in x["why"]
                                  for x in wrong["errors"]),
          "verify-wrong: %d repeat-flag errors named" % len(wrong["errors"]))

    games_and_files()
    grade()
    bad_options()
    terminated()
    finish()


def terminated():
    """SIGTERM with a session under way: its report, then exit 0."""
    proc, port = start_referee("--move-time", "30")
    bot = Bot(port, "waiting", "freeplay", slow_bot)
    bot.start()
    time.sleep(1)
    proc.terminate()
    r = reports_of(proc, 30)
    check(r.get("waiting", {}).get("ended") == "the referee stopped",
          "SIGTERM: the session under way reported as stopped (%s)" % r)
    # A search grading a position far beyond the table stops at the signal too.
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("6,6,6,6,6,6,0/6,6,6,6,6,6,0 S\n")
    proc, port = start_referee("--positions-file", f.name, "--search-time", "600")
    bot = Bot(port, "searching", "freeplay", first_bot)
    bot.start()
    time.sleep(2)
    at = time.time()
    proc.terminate()
    r = reports_of(proc, 60)
    moves = r.get("searching", {}).get("moves", {})
    check(time.time() - at < 10 and moves.get("states") == 1 and moves.get("proven") == 0,
          "SIGTERM during a grading search: stopped in %.1f s, the move unproven" % (time.time() - at))


def bad_options():
    """Bad options and databases: one line on stderr, exit 2 for input, 1 for the database."""
    for args, status, words in (
            (["--move-time", "0"], 2, "--move-time"),
            (["--stones-in-pits", "3-30"], 2, "--stones-in-pits"),
            (["--stones-in-pits", "1"], 2, "--stones-in-pits"),
            (["--pits", "13"], 2, "--pits"),
            (["--games", "2", "--positions-file", "x"], 2, "two sources"),
            (["--games", "2", "--positions", "5"], 2, "--positions"),
            (["--pits", "5"], 1, "no kalah table of 5-pit boards"),
            (["--db", "/nonexistent/db"], 1, "does not exist")):
        db = [] if "--db" in args else ["--db", DB]
        out = subprocess.run([KALAH, "referee", *db, *args], capture_output=True, text=True,
                             timeout=30)
        check(out.returncode == status and words in out.stderr and out.stderr.count("\n") == 1,
              "referee %s: exit %d, one line naming it (%d: %s)"
              % (" ".join(args), status, out.returncode, out.stderr.strip()))


def games_and_files():
    """Games against a bot that plays the first pit; positions from a file."""
    r = one_session("games", "freeplay", first_bot, "--games", "2", "--stones", "1",
                    "--move-time", str(MOVE_TIME), "--search-time", "0.5")
    check(r["ended"] == "all games played" and len(r.get("game_margins", [])) == 2,
          "games: 2 games played to the end (%s)" % r["ended"])
    check(all(m["proven"] for m in r["moves"]["moves"]), "games of 12 stones: every move proven")
    v = one_session("games-verify", "verify", verify_swept_bot, "--games", "2", "--stones", "2",
                    "--move-time", str(MOVE_TIME))
    check(v["ended"] == "all problems sent" and v["verify"]["problems"] >= 4
          and v["verify"]["solved"] == v["verify"]["problems"],
          "games in verify: the games go on with the problems' moves (%s, %d problems)"
          % (v["ended"], v["verify"]["problems"]))
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("# two positions\n0,0,0,0,1,1,20/1,0,0,0,0,1,21 S\n<6,20,21,1,0,0,0,0,1,0,0,0,0,1,1>\n")
    r = one_session("file", "freeplay", first_bot, "--positions-file", f.name)["moves"]["moves"]
    check([m["position"] for m in r] == ["0,0,0,0,1,1,20/1,0,0,0,0,1,21 S",
                                         "1,0,0,0,0,1,20/0,0,0,0,1,1,21 S"],
          "positions-file: both lines sent, in order")
    bad = subprocess.run([KALAH, "referee", "--db", DB, "--positions-file", "/nonexistent"],
                         capture_output=True, text=True)
    check(bad.returncode == 2 and "positions-file" in bad.stderr, "a missing positions file: exit 2")


def grade():
    """kalah grade: a game as moves and as positions, graded as kalah query grades each move."""
    position = "1,0,2,0,1,1,20/0,1,0,2,1,0,19 S"
    positions, pits = [position], []
    while True:
        answer = query(positions[-1])
        if answer["over"]:
            break
        move = answer["moves"][-1]  # the last legal pit
        pits.append(move["pit"])
        positions.append(move["position"])
    as_moves = position + " " + " ".join(map(str, pits)) + "\n"
    as_positions = "\n".join(positions) + "\n"
    for what, text in (("moves", as_moves), ("positions", as_positions)):
        out = subprocess.run([KALAH, "grade", "--db", DB, "--json"], input=text,
                             capture_output=True, text=True)
        check(out.returncode == 0, "grade (%s) exits 0: %s" % (what, out.stderr.strip()))
        if out.returncode:
            continue
        j = json.loads(out.stdout)
        moves = j["games"][0]["moves"]
        ok = len(moves) == len(pits)
        for m, p, pos in zip(moves, pits, positions):
            want = expected_grade(pos, p)
            ok = ok and m["position"] == pos and (m["verdict"], m["best"], m["given_away"],
                                                  m["changes_outcome"]) == want
        check(ok, "grade (%s): %d moves graded as kalah query grades them" % (what, len(pits)))
        check(j["south"]["states"] + j["north"]["states"] == len(pits), "grade: both sides summed")
    bad = subprocess.run([KALAH, "grade", "--db", DB], input="6x4 1 1 1\n", capture_output=True,
                         text=True)
    check(bad.returncode == 2 and "line 1" in bad.stderr and "1" in bad.stderr,
          "grade: an illegal move is a one-line error naming the line (%s)" % bad.stderr.strip())


if __name__ == "__main__":
    main()
