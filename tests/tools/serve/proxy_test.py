#!/usr/bin/env python3
"""kalah serve behind nginx with the shipped site file (examples/serve/nginx.conf), as
docs/SERVING.md sets it up: queries through the proxy answer what kalah query --json prints;
50 clients trickling a request header a byte a second do not keep a query from being answered
through nginx, nor 8 of them aimed at kalah serve itself (4 --connections: a connection holds no
thread until its request is whole); nginx and kalah serve each drop them after their header
timeout; the analysis streams through nginx event by
event; the per-client search limit counts the address nginx puts in X-Real-IP, not one a client
sends; GET /api/v1/health; nginx's rate limit answers 429; both stop on SIGTERM.

nginx runs unprivileged from a main nginx.conf written into WORK_DIR that includes a copy of the
shipped site file, changed only in its `listen` address and the upstream's port.

Usage: proxy_test.py KALAH_BINARY WORK_DIR
"""
import http.client
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import nginx_site  # noqa: E402
from checks import abort, fail, failed, finish  # noqa: E402
import servers  # noqa: E402

KALAH, WORK = (os.path.abspath(a) for a in sys.argv[1:3])
CONNECTIONS = 4  # kalah serve --connections
NGINX_SLOW, DIRECT_SLOW = 50, 8  # slow clients aimed at nginx, at kalah serve
HEADER_TIMEOUT = 10  # the site file's client_header_timeout, seconds
SERVE_HEADER_TIMEOUT = 10  # kalah serve's (HttpLimits::kHeaderSeconds, docs/SERVING.md)
# Inside the 4-pit kalah <= 10 table, and a search beyond every table (the wetherell 6-pit start).
POSITIONS = ["4,0,0,0,11/1,2,0,3,3 N", "0,0,0,1,11/0,3,0,0,9 S"]
SLOW_RULES, SLOW_POSITION = "wetherell", "6,6,6,6,6,6,0/6,6,6,6,6,6,0 S"
MAX_TIME = 3  # kalah serve --max-time: how long each slow search runs
processes = []  # every process started, killed on the way out
sockets = []  # every slow client's socket, closed on the way out



def query_target(rules, position, max_time=None):
    params = {"rules": rules, "position": position}
    if max_time is not None:
        params["max_time"] = max_time
    return "/api/v1/query?" + urllib.parse.urlencode(params)


def get(port, target, headers=None, timeout=30):
    """One request on a connection of its own: (status, headers, body)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request("GET", target, headers=headers or {})
        res = c.getresponse()
        return res.status, res, res.read().decode("utf-8", "replace")
    finally:
        c.close()


def health(port):
    status, _, body = get(port, "/api/v1/health")
    return status, json.loads(body) if status == 200 else body


def wait_for_searches(port, running, timeout=10):
    """Waits until kalah serve says `running` searches are running; whether it did."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, h = health(port)
        if status == 200 and h["searches"]["running"] == running:
            return True
        time.sleep(0.05)
    return False


def start_server(db, *args):
    """kalah serve on a free loopback port; returns (process, port)."""
    err = open(os.path.join(WORK, "serve.stderr"), "w")
    proc, port, line = servers.start(KALAH, "serve", "--db", db, *args, stderr=err)
    processes.append(proc)
    if port is None:
        abort("proxy test: kalah serve did not start: " + repr(line))
    return proc, port


class SlowClients:
    """`count` connections to `port`, each sending a request line and then one byte of a header
    a second, never ending it; notes when the other side closes each."""

    def __init__(self, port, count):
        self.opened = time.monotonic()
        self.socks = []
        for _ in range(count):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /api/v1/health HTTP/1.1\r\n")
            s.setblocking(False)
            self.socks.append(s)
            sockets.append(s)
        self.closed = {}  # socket index -> seconds after opening when the peer closed it
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        sent = 0
        while not self.stop.is_set():
            live = [i for i in range(len(self.socks)) if i not in self.closed]
            if not live:
                return
            for i in live:
                try:
                    self.socks[i].send(b"X-Slow: "[sent:sent + 1] if sent < 8 else b"a")
                except OSError:
                    self.closed[i] = time.monotonic() - self.opened
            sent += 1
            # A second of watching for the peer's close (EOF or reset) before the next byte.
            deadline = time.monotonic() + 1
            while not self.stop.is_set() and time.monotonic() < deadline:
                live = [i for i in range(len(self.socks)) if i not in self.closed]
                if not live:
                    return
                ready, _, _ = select.select([self.socks[i] for i in live], [], [],
                                            max(0, deadline - time.monotonic()))
                for s in ready:
                    i = self.socks.index(s)
                    try:
                        if s.recv(4096) == b"":
                            self.closed[i] = time.monotonic() - self.opened
                    except BlockingIOError:
                        pass
                    except OSError:
                        self.closed[i] = time.monotonic() - self.opened

    def close(self):
        self.stop.set()
        self.thread.join()
        for s in self.socks:
            s.close()


def check_query(port, position, want, what, timeout=30):
    """A query inside the table answers `want`; whether it did."""
    try:
        status, _, body = get(port, query_target("kalah", position), timeout=timeout)
    except (OSError, http.client.HTTPException) as e:
        fail("%s: %s %r" % (what, position, e))
        return False
    if status != 200 or json.loads(body) != want:
        fail("%s: %s: %d %s, kalah query says %s" % (what, position, status, body[:200],
                                                      json.dumps(want)[:200]))
        return False
    return True


def analyze_through(port):
    """GET /api/v1/analyze of the slow search: (status, content type, [(seconds, event)])."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    start = time.monotonic()
    c.request("GET", "/api/v1/analyze?" + urllib.parse.urlencode(
        {"rules": SLOW_RULES, "position": SLOW_POSITION, "max_time": MAX_TIME}))
    res = c.getresponse()
    kind = res.getheader("Content-Type", "")
    events = []
    if res.status == 200:
        for raw in res:
            line = raw.decode("utf-8").rstrip("\n")
            if line.startswith("event: "):
                events.append((time.monotonic() - start, line[7:]))
    c.close()
    return res.status, kind, events


def stop(proc, name):
    code = servers.stop(proc, timeout=20)
    if code is None:
        fail("%s did not stop within 20 s of SIGTERM" % name)
    elif code != 0:
        fail("%s exited with status %d on SIGTERM" % (name, code))


def main():
    nginx = nginx_site.find_nginx("proxy test")
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    started = time.monotonic()
    db = os.path.join(WORK, "k4.db")
    subprocess.run([KALAH, "gen", "--rules", "kalah", "--pits", "4", "--max-stones", "10", "--db",
                    db, "--quiet"], check=True, timeout=120)
    expected = {}
    for position in POSITIONS:
        out = subprocess.run([KALAH, "query", "--db", db, "--rules", "kalah", "--json", position],
                             capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            abort("proxy test: kalah query failed: " + out.stderr.strip())
        expected[position] = json.loads(out.stdout)
        if expected[position]["source"] != "database":
            abort("proxy test: %s is not inside the table: %s" % (position, out.stdout))

    server, serve_port = start_server(
        db, "--connections", str(CONNECTIONS), "--searches", "2", "--searches-per-client", "1",
        "--client-header", "X-Real-IP", "--max-time", str(MAX_TIME), "--tt-mb", "64",
        "--access-log", os.path.join(WORK, "serve-access.log"))
    proxy, nginx_port = nginx_site.start(nginx, WORK, serve_port, "proxy test")
    processes.append(proxy)
    print("proxy test: %s in front of kalah serve (port %d) on port %d"
          % (nginx_site.version(nginx), serve_port, nginx_port))

    # (e) The health check, through nginx.
    status, h = health(nginx_port)
    if status != 200 or h.get("status") != "ok":
        fail("GET /api/v1/health through nginx: %d %s" % (status, h))

    # (a) Queries inside the table, through nginx: what kalah query --json prints.
    for position, want in expected.items():
        check_query(nginx_port, position, want, "query through nginx")

    # (b) Slow clients: NGINX_SLOW trickling headers into nginx, more than kalah serve's
    # connections, do not keep a query through nginx from being answered ...
    position, want = next(iter(expected.items()))
    slow = SlowClients(nginx_port, NGINX_SLOW)
    time.sleep(1.5)
    t = time.monotonic()
    if check_query(nginx_port, position, want, "query through nginx beside %d slow clients"
                   % NGINX_SLOW, timeout=10):
        print("proxy test: %d slow clients on nginx: a query through it answered in %.2f s"
              % (NGINX_SLOW, time.monotonic() - t))
    if slow.closed:
        fail("nginx closed %d of the slow clients within %.1f s of their opening, before its "
             "client_header_timeout" % (len(slow.closed), time.monotonic() - slow.opened))
    # ... nor do DIRECT_SLOW of them aimed at kalah serve itself, twice its --connections: a
    # connection holds none of its threads until its request is whole.
    direct = SlowClients(serve_port, DIRECT_SLOW)
    time.sleep(1.0)
    t = time.monotonic()
    if check_query(serve_port, position, want, "query to kalah serve beside %d slow clients on "
                   "its %d connections" % (DIRECT_SLOW, CONNECTIONS), timeout=10):
        print("proxy test: %d slow clients on kalah serve itself: a query there answered in "
              "%.2f s" % (DIRECT_SLOW, time.monotonic() - t))

    # (c) The analysis streams through nginx: its events arrive as they are sent, not all at the
    # end (the search runs MAX_TIME seconds; progress about once a second).
    status, kind, events = analyze_through(nginx_port)
    names = [e for _, e in events]
    if status != 200 or not kind.startswith("text/event-stream") or not names or \
            names[-1] != "done":
        fail("analyze through nginx: %d %s, events %s" % (status, kind, names[-5:]))
    elif events[0][0] > events[-1][0] - 0.5:
        fail("analyze through nginx: the first event came at %.2f s, done at %.2f s: held back"
             % (events[0][0], events[-1][0]))
    else:
        print("proxy test: analyze through nginx: %d events, the first at %.2f s, done at %.2f s"
              % (len(events), events[0][0], events[-1][0]))

    # (d) --searches-per-client counts the client nginx names in X-Real-IP. With 2 search slots,
    # 1 a client, and one search from 127.0.0.1 (nginx's $remote_addr here) running:
    # - a search through nginx that claims X-Real-IP 1.2.3.4 is still 127.0.0.1's second: 503
    #   (were the claim passed on, it would be another client's first, and run);
    # - a search sent to kalah serve directly as X-Real-IP 10.0.0.9 runs (the header, not the
    #   connection's peer 127.0.0.1, names the client).
    if not wait_for_searches(serve_port, 0):
        fail("searches still running after the analysis ended")
    slow_target = query_target(SLOW_RULES, SLOW_POSITION)
    first = {}

    def first_search():
        try:
            first["answer"] = get(nginx_port, slow_target, timeout=30)[::2]
        except (OSError, http.client.HTTPException) as e:
            first["answer"] = (-1, repr(e))
        first["at"] = time.monotonic()

    runner = threading.Thread(target=first_search)
    runner.start()
    if not wait_for_searches(serve_port, 1):
        fail("the first search through nginx is not running")
    status, res, body = get(nginx_port, slow_target, {"X-Real-IP": "1.2.3.4"})
    if status != 503 or not res.getheader("Retry-After"):
        fail("a second search through nginx claiming X-Real-IP 1.2.3.4: %d (Retry-After %s) %s; "
             "want 503 with Retry-After, counted as 127.0.0.1" % (status, res.getheader(
                 "Retry-After"), body[:200]))
    other_sent = time.monotonic()
    status, _, body = get(serve_port, slow_target, {"X-Real-IP": "10.0.0.9"})
    runner.join()
    if status != 200 or "at" not in first or other_sent >= first["at"]:
        fail("a search as X-Real-IP 10.0.0.9 beside 127.0.0.1's: %d %s; want 200 while the other "
             "runs" % (status, body[:200]))
    if first.get("answer", (-1,))[0] != 200:
        fail("the first search through nginx: %s" % (first.get("answer"),))

    # nginx dropped the slow clients once client_header_timeout passed, kalah serve its own once
    # its header timeout passed.
    for clients, name, timeout in ((slow, "nginx", HEADER_TIMEOUT),
                                   (direct, "kalah serve", SERVE_HEADER_TIMEOUT)):
        deadline = clients.opened + timeout + 5
        while len(clients.closed) < len(clients.socks) and time.monotonic() < deadline:
            time.sleep(0.2)
        clients.close()
        if len(clients.closed) < len(clients.socks):
            fail("%s closed %d of %d slow clients within %d s" % (
                name, len(clients.closed), len(clients.socks), timeout + 5))
        elif min(clients.closed.values()) < timeout - 0.5:
            fail("%s closed a slow client %.1f s after it opened, before its header timeout "
                 "(%d s)" % (name, min(clients.closed.values()), timeout))
        else:
            print("proxy test: %s closed the %d slow clients %.1f..%.1f s after they opened"
                  % (name, len(clients.socks), min(clients.closed.values()),
                     max(clients.closed.values())))

    # (g) nginx's rate limit (20 r/s, burst 40): 150 requests at once from one address, some 429.
    c = http.client.HTTPConnection("127.0.0.1", nginx_port, timeout=30)
    statuses = []
    for _ in range(150):
        c.request("GET", "/api/v1/health")
        res = c.getresponse()
        res.read()
        statuses.append(res.status)
    c.close()
    if set(statuses) - {200, 429} or statuses.count(200) < 41 or statuses.count(429) == 0:
        fail("150 requests at once through nginx: %d answered 200, %d 429, others %s; want at "
             "least 41 (20 r/s, burst 40) and then 429s" % (statuses.count(200),
                                                          statuses.count(429),
                                                          sorted(set(statuses) - {200, 429})))
    else:
        print("proxy test: 150 requests at once: %d answered, %d refused 429"
              % (statuses.count(200), statuses.count(429)))

    # (f) SIGTERM: both exit with status 0.
    stop(proxy, "nginx")
    stop(server, "kalah serve")
    if failed():
        for name in ("nginx-error.log", "serve.stderr"):
            path = os.path.join(WORK, name)
            if os.path.exists(path):
                print("--- %s (last lines)\n%s" % (name, "".join(open(path).readlines()[-20:])),
                      file=sys.stderr)
        print("proxy test: %d failure(s)" % failed())
        finish()
    print("proxy test: all checks passed in %.1f s" % (time.monotonic() - started))


try:
    main()
finally:
    for s in sockets:
        s.close()
    for p in processes:
        if p.poll() is None:
            p.kill()
            p.wait()
