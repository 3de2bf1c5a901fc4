#!/usr/bin/env python3
"""A KGP server double for `kalah kgp` (usage: kgp_server_test.py KALAH DB).

DB holds a 6-pit kalah table of levels 0..8. On a free loopback port the double greets the client
as go-kgp does (`kgp 1 0 1`, states with IDs, `ID@REF stop`), plays whole games under KGP's rules
(written out here: go-kgp's board.go) on 6 pits x 4 stones and 8 pits x 3 stones checking every
move legal, sends bad lines, pings, stops a long think, drops the connection mid-game, and checks
that inside the table every move the client ends on is one `kalah query --json` marks best.
"""
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
from checks import expect, failed, finish  # noqa: E402
from kgp_rules import collect, flip, kgp_board, notation, over, sow  # noqa: E402

KALAH, DB = sys.argv[1], sys.argv[2]


# ---- The server side of one connection.

class Conn:
    def __init__(self, sock):
        self.sock, self.buf, self.next_id = sock, b"", 2
        sock.settimeout(0.05)

    def send(self, line):
        data = line if isinstance(line, bytes) else line.encode()
        self.sock.sendall(data + b"\r\n")

    def send_cmd(self, text, ref=None):
        """Sends `ID[@REF] text` with a fresh even ID (go-kgp's numbering); returns the ID."""
        cid = self.next_id
        self.next_id += 2
        self.send("%d%s %s" % (cid, "" if ref is None else "@%d" % ref, text))
        return cid

    def line(self, timeout):
        """The next line from the client, or None after timeout seconds (or at end of file)."""
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            if time.monotonic() > end:
                return None
            try:
                chunk = self.sock.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                return None
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode().rstrip("\r")

    def close(self):
        self.sock.close()


def handshake(server, expect_name, expect_token):
    sock, _ = server.accept()
    conn = Conn(sock)
    conn.send("kgp 1 0 1")
    got = []
    while True:
        line = conn.line(5)
        if not expect(line is not None, "handshake ended early after %r" % got):
            return conn
        got.append(line)
        if line == "mode freeplay":
            break
    expect("set info:name %s" % expect_name in got, "info:name in %r" % got)
    if expect_token:
        expect("set auth:token %s" % expect_token in got, "auth:token in %r" % got)
    return conn


def request(conn, cells, m, timeout, stop_after_first=False):
    """Sends the mover's view as a state; returns (last move, lines about it, seconds)."""
    start = time.monotonic()
    sid = conn.send_cmd("state " + kgp_board(cells, m))
    moves, lines = [], []
    while True:
        line = conn.line(timeout)
        if not expect(line is not None, "no yield for %s (moves %r)" % (kgp_board(cells, m), moves)):
            break
        lines.append(line)
        if line.startswith("@%d move " % sid):
            pit = int(line.split()[2])
            expect(1 <= pit <= m and cells[pit - 1] > 0,
                  "illegal move %d in %s" % (pit, kgp_board(cells, m)))
            moves.append(pit)
            if stop_after_first:
                break
        elif line == "@%d yield" % sid:
            break
        else:
            expect(line.startswith("@%d set info:comment " % sid), "unexpected line %r" % line)
    conn.send_cmd("stop", ref=sid)
    return (moves[-1] if moves else None), lines, time.monotonic() - start


def play_game(conn, m, stones, client_sides, rng):
    """A whole game, South first; the client moves for the sides in client_sides ('S', 'N'), a
    random player for the others. Returns the client's final margin if it plays one side."""
    cells = [stones] * m + [0] + [stones] * m + [0]  # South to move
    side, plies = "S", 0
    while not over(cells, m):
        if side in client_sides:
            pit, _, _ = request(conn, cells, m, 10)
            if pit is None:
                return None
        else:
            pit = rng.choice([i + 1 for i in range(m) if cells[i] > 0])
        plies += 1
        if not sow(cells, m, pit):
            cells = flip(cells, m)
            side = "N" if side == "S" else "S"
    collect(cells, m)
    margin = cells[m] - cells[2 * m + 1]  # for `side`
    print("game %dx%d, client plays %s: %d plies, final margin %+d for %s" %
          (m, stones, "".join(sorted(client_sides)), plies, margin, side), flush=True)
    return margin if side in client_sides else -margin


def cpu_seconds(pid):
    """The CPU time the process has used (Linux /proc)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_client(port, log, *args, env=None):
    cmd = [KALAH, "kgp", "127.0.0.1:%d" % port, "--db", DB] + list(args)
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, env=env)


def test_games_and_bad_lines(server, port, log):
    env = dict(os.environ, KGP_TOKEN="t0ken-xyz")
    client = start_client(port, log, "--name", "kgp-test", "--move-time", "0.1", env=env)
    rng = random.Random(2671)
    try:
        conn = handshake(server, "kgp-test", "t0ken-xyz")
        margin = play_game(conn, 6, 4, {"S"}, rng)
        expect(margin is not None and margin > 0, "6x4 against random as S: margin %r" % margin)
        margin = play_game(conn, 8, 3, {"N"}, rng)
        expect(margin is not None and margin > 0, "8x3 against random as N: margin %r" % margin)
        expect(play_game(conn, 6, 3, {"S", "N"}, rng) is not None, "6x3 self-play completes")

        for bad in [b"garbage !!", b"@@@", b"state", b"state <1,2>", b"state <6,0,0,1>",
                    b"state <13,0,0," + b",".join([b"1"] * 26) + b">", b"state <6,0,0,1,1>x",
                    b"4 frobnicate 1 2", b"\xff\xfe\x00\x01", b"x" * 20000, b'set "unterminated',
                    b"state <2,0,0,1,1,70000,1>"]:
            conn.send(bad)
        pid = conn.send_cmd("ping")
        expect(conn.line(2) == "@%d pong" % pid, "pong after bad lines")
        expect(client.poll() is None, "client alive after bad lines")
        # A state that is over gets a yield and no move.
        sid = conn.send_cmd("state <3,5,4,0,0,0,1,2,0>")
        expect(conn.line(2) == "@%d yield" % sid, "yield for a finished game")
        pit, _, _ = request(conn, [4] * 6 + [0] + [4] * 6 + [0], 6, 5)
        expect(pit is not None, "a move after the bad lines")
        conn.close()
    finally:
        client.kill()
        client.wait()
    log.flush()
    with open(log.name, errors="replace") as f:
        text = f.read()
    expect(text.count("ignored line") >= 10, "bad lines logged (%d)" % text.count("ignored line"))


def test_exact_in_table(server, port, log):
    client = start_client(port, log, "--move-time", "2")
    rng = random.Random(6)
    try:
        conn = handshake(server, "kalah", None)
        positions, played = [], []
        while len(positions) < 25:
            cells = [0] * 14
            for _ in range(rng.randint(2, 8)):
                cells[rng.choice([i for i in range(13) if i != 6])] += 1
            cells[6], cells[13] = rng.randint(0, 20), rng.randint(0, 20)
            if over(cells, 6):
                continue
            pit, _, seconds = request(conn, cells, 6, 5)
            expect(seconds < 1.5, "a table position answered in %.2f s" % seconds)
            positions.append(notation(cells, 6))
            played.append(pit)
        conn.close()
    finally:
        client.kill()
        client.wait()
    out = subprocess.run([KALAH, "query", "-", "--json", "--rules", "kalah", "--db", DB],
                         input="\n".join(positions) + "\n", capture_output=True, text=True,
                         check=True).stdout.splitlines()
    expect(len(out) == len(positions), "one query answer per position")
    for pos, pit, answer in zip(positions, played, out):
        best = [mv["pit"] for mv in json.loads(answer)["moves"] if mv["best"]]
        expect(pit in best, "%s: played %r, best %r" % (pos, pit, best))


def test_stop_ping_and_reconnect(server, port, log):
    client = start_client(port, log, "--move-time", "60")
    try:
        conn = handshake(server, "kalah", None)
        cells = [6] * 8 + [0] + [6] * 8 + [0]
        sid = conn.send_cmd("state " + kgp_board(cells, 8))
        first = conn.line(5)
        expect(first is not None and first.startswith("@%d " % sid), "a first line: %r" % first)
        time.sleep(1)
        cpu = cpu_seconds(client.pid)
        time.sleep(1)
        expect(cpu_seconds(client.pid) - cpu > 0.1, "searching before stop")
        t = time.monotonic()
        pid = conn.send_cmd("ping")
        line = conn.line(5)
        while line is not None and line.startswith("@%d " % sid):
            line = conn.line(5)
        expect(line == "@%d pong" % pid and time.monotonic() - t < 1,
              "pong while thinking: %r after %.2f s" % (line, time.monotonic() - t))
        conn.send_cmd("stop", ref=sid)
        t = time.monotonic()
        pid = conn.send_cmd("ping")
        line = conn.line(5)
        while line is not None and line.startswith("@%d " % sid):  # sent before the stop
            line = conn.line(5)
        expect(line == "@%d pong" % pid and time.monotonic() - t < 1,
              "pong after stop: %r after %.2f s" % (line, time.monotonic() - t))
        cpu = cpu_seconds(client.pid)
        late = conn.line(1)
        expect(late is None, "nothing after stop: %r" % late)
        expect(cpu_seconds(client.pid) - cpu < 0.2, "no search after stop: %.2f s of CPU in 1 s" %
              (cpu_seconds(client.pid) - cpu))

        # A dropped connection mid-think: the client comes back and plays on.
        sid = conn.send_cmd("state " + kgp_board(cells, 8))
        expect(conn.line(5) is not None, "thinking again")
        conn.sock.shutdown(socket.SHUT_RDWR)
        conn.close()
        t = time.monotonic()
        server.settimeout(10)
        conn = handshake(server, "kalah", None)
        expect(time.monotonic() - t < 3, "reconnected after %.2f s" % (time.monotonic() - t))
        pit, _, _ = request(conn, [4] * 6 + [0] + [4] * 6 + [0], 6, 10, stop_after_first=True)
        expect(pit is not None, "a move after reconnecting")
        pid = conn.send_cmd("ping")
        line = conn.line(3)
        while line is not None and line != "@%d pong" % pid:
            line = conn.line(3)
        expect(line is not None, "pong after reconnecting")
        conn.send("goodbye")
        conn.close()
    finally:
        client.kill()
        client.wait()


def test_gives_up(log):
    """--retries 2 against a port nobody listens on: exit 1 after two failed connections."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    t = time.monotonic()
    r = subprocess.run([KALAH, "kgp", "127.0.0.1:%d" % port, "--retries", "2"],
                       capture_output=True, text=True, timeout=20)
    expect(r.returncode == 1, "exit %d after failed connections: %s" % (r.returncode, r.stderr))
    expect("giving up after 2 failed connections" in r.stderr, r.stderr)
    expect(time.monotonic() - t < 5, "gave up in %.2f s" % (time.monotonic() - t))
    bad = subprocess.run([KALAH, "kgp", "localhost:99999"], capture_output=True, text=True)
    expect(bad.returncode == 2 and bad.stderr.count("\n") == 1, "bad port: " + bad.stderr)


def main():
    start = time.monotonic()
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.settimeout(10)
    port = server.getsockname()[1]
    with tempfile.NamedTemporaryFile("w+", suffix=".log") as log:
        for test in (test_games_and_bad_lines, test_exact_in_table, test_stop_ping_and_reconnect):
            print("--", test.__name__, flush=True)
            test(server, port, log)
        print("-- test_gives_up", flush=True)
        test_gives_up(log)
        if failed():
            with open(log.name, errors="replace") as f:
                print("client's stderr:\n" + f.read()[-4000:])
    print("%d failures, %.1f s" % (failed(), time.monotonic() - start))
    finish()


if __name__ == "__main__":
    main()
