#!/usr/bin/env python3
"""kalah serve for real: the API against kalah query --json on the value vectors (a warm analysis
cache against cold ones), 400s on bad input, a burst of concurrent requests all answered correctly,
the analysis streams, a slow search not holding up the others; searches admitted a bounded number
at once and per client (503 beyond), the health endpoint, the access log, SIGTERM with searches
under way.

Usage: serve_test.py KALAH_BINARY VECTORS_DIR WORK_DIR
"""
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
from checks import abort, fail, failed, finish  # noqa: E402
import servers  # noqa: E402

KALAH, VECTORS, WORK = (os.path.abspath(a) for a in sys.argv[1:4])
TABLES = [("kalah", 4, 10), ("wetherell", 4, 10)]  # rules, pits, max stones
BURST_REQUESTS, BURST_CONNECTIONS = 2000, 32
def start_server(db, *args):
    """Starts kalah serve on a free loopback port; returns (process, port)."""
    proc, port, line = servers.start(KALAH, "serve", "--db", db, *args)
    if port is None:
        proc.kill()
        abort("serve test: kalah serve did not start: " + repr(line))
    return proc, port


def stop_server(proc):
    status = servers.stop(proc)
    if status is None:
        fail("kalah serve did not stop on SIGTERM")
    elif status != 0:
        fail("kalah serve exited with status %d on SIGTERM" % status)


def get(conn, target):
    conn.request("GET", target)
    res = conn.getresponse()
    return res.status, res.read().decode("utf-8", "replace")


def query_target(rules, position):
    return "/api/v1/query?" + urllib.parse.urlencode({"rules": rules, "position": position})


def analyze_events(port, rules, position, extra=""):
    """GET /api/v1/analyze: (status, content type, [(event, parsed data)])."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    c.request("GET", "/api/v1/analyze?" + urllib.parse.urlencode({"rules": rules, "position": position}) + extra)
    res = c.getresponse()
    kind = res.getheader("Content-Type", "")
    if res.status != 200:
        return res.status, kind, [("body", res.read().decode("utf-8", "replace"))]
    events, name = [], None
    for raw in res:
        line = raw.decode("utf-8").rstrip("\n")
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            events.append((name, json.loads(line[6:])))
    c.close()
    return res.status, kind, events


def span(v):
    """The proven range of a value of an answer."""
    return (v["margin"], v["margin"]) if v["exact"] else (v["lower"], v["upper"])


def bounds_hold(answer, final):
    """Whether every value of `answer` is a bound pair (or exact value) around the final exact one."""
    pairs = [(answer, final)] + list(zip(answer["moves"], final["moves"]))
    return len(answer["moves"]) == len(final["moves"]) and all(
        span(a)[0] <= f["margin"] <= span(a)[1] for a, f in pairs)


def cli_answers(rules, positions, db):
    """kalah query --json of each position (with --db when given, else search alone)."""
    args = [KALAH, "query", "--rules", rules, "--json", "--quiet", "-"]
    if db:
        args += ["--db", db]
    out = subprocess.run(args, input="".join(p + "\n" for p in positions), capture_output=True,
                         text=True, cwd=WORK, timeout=600)
    if out.returncode != 0:
        abort("serve test: kalah query failed: " + out.stderr.strip())
    return [json.loads(line) for line in out.stdout.splitlines()]


def health(port):
    status, body = get(http.client.HTTPConnection("127.0.0.1", port, timeout=30), "/api/v1/health")
    return status, json.loads(body)


def wait_for_searches(port, running):
    """Waits until the server reports `running` searches under way."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if health(port)[1]["searches"]["running"] == running:
            return True
        time.sleep(0.05)
    fail("the server never had %d searches running" % running)
    return False


def admission_and_shutdown(db, expected):
    log = os.path.join(WORK, "access.log")
    server, port = start_server(db, "--max-time", "3", "--searches", "2", "--searches-per-client",
                                "1", "--client-header", "X-Client", "--access-log", log)
    slow = query_target("wetherell", "6,6,6,6,6,6,0/6,6,6,6,6,6,0 S")
    answers = {}

    def ask(client):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        c.request("GET", slow, headers={"X-Client": client})
        r = c.getresponse()
        answers[client] = (r.status, r.read().decode())

    def refused(client, why):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        c.request("GET", slow, headers={"X-Client": client})
        r = c.getresponse()
        body = r.read().decode()
        if r.status != 503 or not r.getheader("Retry-After") or "error" not in json.loads(body):
            fail("%s: %d %s (Retry-After %s), want 503 with Retry-After"
                 % (why, r.status, body[:200], r.getheader("Retry-After")))

    searches = [threading.Thread(target=ask, args=(name,)) for name in ("alice", "bob")]
    try:
        status, h = health(port)
        if status != 200 or h.get("status") != "ok" or h.get("tables") != len(TABLES) or \
                h.get("searches") != {"running": 0, "slots": 2, "per_client": 1}:
            fail("GET health: %d %s" % (status, h))
        searches[0].start()
        wait_for_searches(port, 1)
        refused("alice", "a second search of a client with one running")
        searches[1].start()
        wait_for_searches(port, 2)
        refused("carol", "a search with every slot taken")
        (rules, position), want = next((k, v) for k, v in expected.items()
                                       if v["source"] == "database")
        status, body = get(http.client.HTTPConnection("127.0.0.1", port, timeout=30),
                           query_target(rules, position))
        if status != 200 or json.loads(body) != want:
            fail("a query inside the table with every search slot taken: %d %s"
                 % (status, body[:200]))
    finally:
        stop_server(server)  # SIGTERM while alice's and bob's searches run
        for t in searches:
            if t.ident is not None:
                t.join()
    for client in ("alice", "bob"):
        status, body = answers.get(client, (-1, "{}"))
        answer = json.loads(body) if status == 200 else {}
        if answer.get("position") != "6,6,6,6,6,6,0/6,6,6,6,6,6,0 S" or answer.get("exact") is None:
            fail("%s's search under way at SIGTERM: %d %s" % (client, status, body[:200]))
    # The access log: a line per request, the Common Log Format and the seconds taken.
    pattern = re.compile(r'^(\S+) - - \[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d \+0000\] '
                         r'"GET /api/v1/\S+ HTTP/1\.1" (\d{3}) (\d+|-) \d+\.\d{4}$')
    lines = open(log).read().splitlines()
    matches = [m for m in map(pattern.match, lines) if m]
    statuses = sorted(int(m.group(2)) for m in matches)
    clients = {m.group(1) for m in matches}  # as --client-header names them, else the peer
    if len(statuses) != len(lines) or statuses.count(503) != 2 or statuses.count(200) < 4 or \
            clients != {"127.0.0.1", "alice", "bob", "carol"}:
        fail("access log: %d lines, %d in the format, statuses %s, clients %s: %s"
             % (len(lines), len(statuses), statuses, sorted(clients), lines[:3]))
    print("serve test: searches admitted 2 at once, 1 a client; SIGTERM answered both; "
          "%d access log lines" % len(lines))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    db = os.path.join(WORK, "serve.db")
    for rules, pits, top in TABLES:
        subprocess.run([KALAH, "gen", "--rules", rules, "--pits", str(pits), "--max-stones",
                        str(top), "--db", db, "--quiet"], check=True, timeout=600)

    # What kalah query --json says of every value vector: with the database where it has the
    # table, by search alone elsewhere (as the server does).
    expected = {}  # (rules, position) -> parsed answer
    for rules in ("wetherell", "kalah", "kalah-empty-capture"):
        rows = [line.split() for line in open(os.path.join(VECTORS, "values-%s.txt" % rules))
                if line.strip() and not line.startswith("#")]
        inside, outside = [], []
        for board, side, value in rows:
            position = board + " " + side
            pits = board.count(",") // 2
            (inside if (rules, pits) in [(r, m) for r, m, _ in TABLES] else outside).append(
                (position, int(value)))
        for group, use_db in ((inside, db), (outside, None)):
            answers = cli_answers(rules, [p for p, _ in group], use_db)
            for (position, value), answer in zip(group, answers):
                if answer["margin"] != value:
                    fail("kalah query %s %s: margin %s, vector says %d"
                         % (rules, position, answer["margin"], value))
                expected[(rules, position)] = answer
    sources = {a["source"] for a in expected.values()}
    if not {"database", "search"} <= sources:
        fail("the vectors reach only %s; want both the database and search" % sorted(sources))
    # kalah query - keeps one analysis cache for the whole batch: its (warm) answers equal those of
    # a cold cache, a process of its own for each position.
    searched = [(k, v) for k, v in expected.items() if v["source"] != "database"]
    for (rules, position), warm in searched[::max(1, len(searched) // 40)]:
        has_table = (rules, position.count(",") // 2) in [(r, m) for r, m, _ in TABLES]
        cold = cli_answers(rules, [position], db if has_table else None)[0]
        if cold != warm:
            fail("kalah query %s %s: a cold cache answers %s, the warm batch %s"
                 % (rules, position, json.dumps(cold)[:200], json.dumps(warm)[:200]))

    server, port = start_server(db, "--max-time", "600", "--connections", "64", "--searches", "32",
                                "--searches-per-client", "32")
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        # 1. The API answers exactly what kalah query --json prints.
        for (rules, position), want in expected.items():
            status, body = get(conn, query_target(rules, position))
            if status != 200 or json.loads(body) != want:
                fail("GET query %s %s: %d %s, kalah query says %s"
                     % (rules, position, status, body[:200], json.dumps(want)[:200]))
        status, body = get(conn, "/api/v1/tables")
        tables = json.loads(body)["tables"]
        if status != 200 or sorted((t["rules"], t["pits"], t["max_stones"]) for t in tables) != \
                sorted(TABLES):
            fail("GET tables: %d %s" % (status, body))
        # Every known rule set with its start: the etude's 3 stones, Kalah(6,4)'s 4.
        info = json.loads(body)
        if sorted(info.get("start_stones", {})) != sorted(info["rules"]) or \
                info["start_stones"]["wetherell"] != 3 or info["start_stones"]["kalah"] != 4:
            fail("GET tables: start_stones %s for rules %s" % (info.get("start_stones"),
                                                              info["rules"]))
        status, body = get(conn, "/")
        if status != 200 or "<html" not in body:
            fail("GET /: %d, no page" % status)

        # 2. Bad input: status 400 (404 for no such page) and a one-line JSON error.
        bad = [
            "/api/v1/query", "/api/v1/query?rules=kalah", "/api/v1/query?position=",
            "/api/v1/query?position=garbage", "/api/v1/query?rules=chess&position=3,3,0/3,3,0+S",
            "/api/v1/query?position=3,3,0/3,3,0+S&position=3,3,0/3,3,0+N",
            "/api/v1/query?position=3,3,0/3,3,0+S&depth=3", "/api/v1/query?position=3,3,0/3,3+S",
            "/api/v1/query?position=99999,3,0/3,3,0+S", "/api/v1/query?position=-1,3,0/3,3,0+S",
            "/api/v1/query?position=" + "1," * 300 + "0/0,0+S",
            "/api/v1/query?position=%ff%fe%00,3,0/3,3,0+S", "/api/v1/query?position=%zz",
            "/api/v1/query?position=3,3,0/3,3,0+X", "/api/v1/query?position=3,3,0/3,3,0+S+S",
            "/api/v1/query?position=3,3,0/3,3,0+S&max_time=0",
            "/api/v1/query?position=3,3,0/3,3,0+S&max_time=-1",
            "/api/v1/query?position=3,3,0/3,3,0+S&max_time=abc",
            "/api/v1/query?position=3,3,0/3,3,0+S&max_time=inf",
            "/api/v1/query?position=3,3,0/3,3,0+S&max_time=nan",
            "/api/v1/query?position=3,3,0/3,3,0+S&max_time=1e999",
            "/api/v1/query?position=3,3,0/3,3,0+S&max_time=+5",
            "/api/v1/query?position=3,3,0/3,3,0+S&max_time=1&max_time=2",
            "/api/v1/analyze?position=garbage", "/api/v1/analyze?rules=chess&position=3,3,0/3,3,0+S",
            "/api/v1/analyze?position=3,3,0/3,3,0+S&max_time=0",
        ]
        for target in bad:
            status, body = get(conn, target)
            try:
                error = json.loads(body)["error"]
            except (ValueError, KeyError):
                error = None
            if status != 400 or not error or "\n" in error:
                fail("GET %s: %d %s, want 400 and an error" % (target[:80], status, body[:200]))
        status, body = get(conn, "/api/v2/query")
        if status != 404 or "error" not in json.loads(body):
            fail("GET /api/v2/query: %d %s, want 404 and an error" % (status, body[:200]))
        # Not HTTP at all, then a request line too long: refused, and the server still answers.
        for garbage in (b"\x16\x03\x01\x02\x00garbage\r\n\r\n",
                        b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n"):
            with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
                s.sendall(garbage)
                s.shutdown(socket.SHUT_WR)
                reply = s.recv(100)
                if reply and not reply.startswith(b"HTTP/1.1 4"):
                    fail("raw %r...: answered %r" % (garbage[:20], reply[:40]))
        status, _ = get(http.client.HTTPConnection("127.0.0.1", port, timeout=60),
                        "/api/v1/tables")
        if status != 200:
            fail("after malformed requests: GET tables %d" % status)

        # 3. A burst: BURST_REQUESTS requests over BURST_CONNECTIONS connections at once.
        items = list(expected.items())
        wrong, done = [], [0]
        lock = threading.Lock()

        def client(k):
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            for i in range(k, BURST_REQUESTS, BURST_CONNECTIONS):
                (rules, position), want = items[(i * 7919) % len(items)]
                try:
                    status, body = get(c, query_target(rules, position))
                    ok = status == 200 and json.loads(body) == want
                except (OSError, http.client.HTTPException, ValueError) as e:
                    ok, status, body = False, -1, repr(e)
                    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
                with lock:
                    done[0] += 1
                    if not ok:
                        wrong.append("%s %s: %s %s" % (rules, position, status, body[:100]))

        start = time.monotonic()
        threads = [threading.Thread(target=client, args=(k,)) for k in range(BURST_CONNECTIONS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        seconds = time.monotonic() - start
        if done[0] != BURST_REQUESTS or wrong:
            fail("burst: %d of %d answered, %d wrong, e.g. %s"
                 % (done[0], BURST_REQUESTS, len(wrong), wrong[:3]))
        print("serve test: burst of %d requests on %d connections: all correct, %.1f s"
              % (BURST_REQUESTS, BURST_CONNECTIONS, seconds))

        # 3b. /api/v1/analyze, 8 streams at once: the last event is `done` with kalah query's
        # answer; every `answer` before it holds true bounds, each no looser than the one before.
        stream_items = searched[::max(1, len(searched) // 12)] + \
            [(k, v) for k, v in expected.items() if v["source"] == "database"][:3]
        stream_wrong = []

        def stream(k):
            for (rules, position), want in stream_items[k::8]:
                status, kind, events = analyze_events(port, rules, position)
                names = [e for e, _ in events]
                if status != 200 or not kind.startswith("text/event-stream") or not events or \
                        names[-1] != "done" or events[-1][1] != want:
                    stream_wrong.append("%s %s: %d %s %s" % (rules, position, status, kind, names[-3:]))
                    continue
                answers = [a for e, a in events if e == "answer"]
                if want["source"] != "database" and not answers:
                    stream_wrong.append("%s %s: no answer before done" % (rules, position))
                for prev, cur in zip([None] + answers, answers + [want]):
                    if not bounds_hold(cur, want):
                        stream_wrong.append("%s %s: %s" % (rules, position, json.dumps(cur)[:160]))
                    for a, b in zip([prev] + prev["moves"], [cur] + cur["moves"]) if prev else ():
                        if span(b)[0] < span(a)[0] or span(b)[1] > span(a)[1]:
                            stream_wrong.append("%s %s: bounds widened" % (rules, position))

        threads = [threading.Thread(target=stream, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if stream_wrong:
            fail("analyze streams: %d wrong, e.g. %s" % (len(stream_wrong), stream_wrong[:3]))
        print("serve test: %d analyze streams end as kalah query answers, their bounds true"
              % len(stream_items))
    finally:
        stop_server(server)

    # 4. A search that runs to its time bound does not hold up other connections, and its
    # answer says it is not exact.
    server, port = start_server(db, "--max-time", "4")
    try:
        slow = {}

        def slow_query():
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            slow["answer"] = get(c, query_target("wetherell", "6,6,6,6,6,6,0/6,6,6,6,6,6,0 S"))
            slow["at"] = time.monotonic()

        t = threading.Thread(target=slow_query)
        t.start()
        time.sleep(0.5)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        (rules, position), want = next((k, v) for k, v in expected.items() if v["source"] ==
                                       "database")
        status, body = get(conn, query_target(rules, position))
        fast_at = time.monotonic()
        t.join()
        if status != 200 or json.loads(body) != want:
            fail("query beside a slow search: %d %s" % (status, body[:200]))
        if "at" not in slow or fast_at >= slow["at"]:
            fail("a query inside the database waited for a search beyond it")
        status, body = slow.get("answer", (-1, "{}"))
        answer = json.loads(body)
        if status != 200 or answer.get("exact") is not False or answer.get("margin") is not None \
                or not answer.get("lower", 1) < answer.get("upper", 0):
            fail("time-bounded search: %d %s, want bounds marked not exact" % (status, body[:300]))
        # A request's max_time below the server's: answered as bounds all the same.
        status, body = get(conn, query_target("wetherell", "6,6,6,6,6,6,0/6,6,6,6,6,6,0 S") +
                           "&max_time=0.5")
        if status != 200 or json.loads(body).get("exact") is not False:
            fail("max_time=0.5: %d %s, want bounds marked not exact" % (status, body[:300]))
        # A stream given up by its client: the server goes on answering.
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        c.request("GET", "/api/v1/analyze?position=6,6,6,6,6,6,0/6,6,6,6,6,6,0+S")
        c.getresponse().readline()
        c.close()
        status, body = get(conn, query_target(rules, position))
        if status != 200 or json.loads(body) != want:
            fail("after an abandoned stream: %d %s" % (status, body[:200]))
    finally:
        stop_server(server)

    # 5. Searches beyond the table are admitted two at once, one a client (named by a header);
    # answers from the table never wait for them; SIGTERM answers the searches under way.
    admission_and_shutdown(db, expected)

    # 6. kalah bench serve: the same server in one process, its answers checked by the library.
    bench = subprocess.run([KALAH, "bench", "serve", "--db", db, "--rules", "kalah", "--requests",
                            "500", "--connections", "8", "--positions", "100"],
                           capture_output=True, text=True, timeout=600)
    if bench.returncode != 0 or " 0 wrong" not in bench.stdout:
        fail("kalah bench serve: exit %d: %s%s" % (bench.returncode, bench.stdout, bench.stderr))

    # 7. kalah bench serve --url against a running server: its load, a checked search, a walk;
    # the walk alone on a fresh server walks the same game (equal signatures).
    walks = []
    for load in (["--seconds", "2", "--rate", "20", "--connections", "2", "--searchers", "1",
                  "--beyond", "1-2", "--check", "1"], ["--seconds", "0"]):
        server, port = start_server(db)
        try:
            bench = subprocess.run([KALAH, "bench", "serve", "--db", db, "--rules", "kalah",
                                    "--url", "127.0.0.1:%d" % port, "--walk", "6",
                                    "--server-pid", str(server.pid)] + load,
                                   capture_output=True, text=True, timeout=600)
        finally:
            stop_server(server)
        walk = re.search(r"walk from the start, 3 a pit: (\d+) plies in [0-9.]+ s, every answer "
                         r"exact, positions signature ([0-9a-f]+)", bench.stdout)
        if bench.returncode != 0 or " 0 failed, 0 wrong" not in bench.stdout or not walk or \
                int(walk.group(1)) != 6:
            fail("kalah bench serve --url %s: exit %d: %s%s"
                 % (" ".join(load), bench.returncode, bench.stdout, bench.stderr))
        walks.append(walk.group(2) if walk else None)
    if walks[0] != walks[1]:
        fail("the walk after a load and on a fresh server differ: %s" % walks)
    print("serve test: bench serve --url: a load, a checked search and a 6-ply walk, the same "
          "game walked on a fresh server (%s)" % walks[0])

    if failed():
        print("serve test: %d failure(s)" % failed())
        finish()
    print("serve test: %d vectors answered as kalah query does, %d bad requests refused"
          % (len(expected), len(bad)))


main()
