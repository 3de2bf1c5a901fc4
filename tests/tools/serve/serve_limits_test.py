#!/usr/bin/env python3
"""kalah serve under hostile or careless clients, directly and behind the shipped nginx site:
overlapping byte ranges get the page once (200, its size); a path with a newline and a terminal
escape, and bytes that are not HTTP, are logged escaped on one line each (stderr and the access
log: no forged line, no control byte), with the client and a sane time; a 100 MB body is refused
(405/413) unread, chunked too, the server's memory unchanged; 100,000 headers, and 150 small
ones, get 431; 2,000 idle connections keep no query from being answered; an idle kept connection
is closed after the header timeout, and one connection carries at most 1,000 requests; a burst of
300 connections overflows no listen queue (the backlog as `ss` shows it); other methods get 405
with Allow, OPTIONS 204; /api/v1/tables names the database, not its path on the server.

Usage: serve_limits_test.py KALAH_BINARY WORK_DIR
"""
import http.client
import json
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import nginx_site  # noqa: E402
from checks import abort, fail, failed, finish  # noqa: E402
import servers  # noqa: E402

KALAH, WORK = (os.path.abspath(a) for a in sys.argv[1:3])
TEST = "serve limits test"
HEADER_SECONDS = 10  # HttpLimits::kHeaderSeconds
NGINX_KEEPALIVE = 15  # the site file's keepalive_timeout
REQUESTS_PER_CONNECTION = 1000  # HttpLimits::kRequestsPerConnection
BACKLOG = 1024  # HttpLimits::kListenBacklog
POSITION = "4,0,0,0,11/1,2,0,3,3 N"  # inside the 4-pit kalah <= 10 table
processes = []
sockets = []



def raw(port, data, read_all=True, timeout=10):
    """Sends `data` on a connection of its own; the reply's bytes (until the server closes, or
    the first recv when not read_all)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(data)
        except OSError:
            pass  # the server refused before reading it all; its answer may still be there
        out = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
                if not read_all:
                    break
        except OSError:
            pass
        return out


def status_of(reply):
    m = re.match(rb"HTTP/1\.[01] (\d{3})", reply)
    return int(m.group(1)) if m else None


def get(port, target, headers=None, timeout=30):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request("GET", target, headers=headers or {})
        res = c.getresponse()
        return res.status, res, res.read()
    finally:
        c.close()


def rss_kib(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


def listen_overflows():
    """The kernel's count of connections dropped from full listen queues (TcpExt)."""
    lines = open("/proc/net/netstat").read().splitlines()
    for names, values in zip(lines[::2], lines[1::2]):
        if names.startswith("TcpExt:"):
            table = dict(zip(names.split()[1:], values.split()[1:]))
            return int(table["ListenOverflows"]) + int(table["ListenDrops"])
    return 0


def check_ranges(port, where, page_size):
    """(1) Overlapping ranges: the whole page once, 200; so is a single range."""
    many = "bytes=" + ",".join(["0-"] * 2700)
    for ranges in (many, "bytes=0-99"):
        status, res, body = get(port, "/", {"Range": ranges, "Accept-Encoding": "identity"})
        if status != 200 or len(body) != page_size:
            fail("%s: GET / with Range %s...: %d, %d bytes; want 200 and the page's %d"
                 % (where, ranges[:20], status, len(body), page_size))


def check_bodies(port, where, pid):
    """(4a) A 100 MB body announced, a few KiB sent: refused unread; chunked too."""
    before = rss_kib(pid)
    head = (b"POST /api/v1/query HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n" +
            b"x" * 65536)
    status = status_of(raw(port, head, read_all=False))
    want = (405,) if where == "direct" else (405, 413)  # nginx refuses the size first
    if status not in want:
        fail("%s: a POST announcing 100 MB: %s, want %s" % (where, status, want))
    chunked = (b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
               b"10000\r\n" + b"y" * 65536)
    status = status_of(raw(port, chunked, read_all=False))
    if status not in (413, 411, 400) or (where == "direct" and status != 413):
        fail("%s: a chunked GET body: %s, want 413" % (where, status))
    grown = rss_kib(pid) - before
    if grown > 8192:
        fail("%s: kalah serve's memory grew %d KiB on refused bodies" % (where, grown))


def check_headers(port, where):
    """(4b) 100,000 header fields (5 MB), and 150 small ones: 431 (nginx: 400 for the first)."""
    many = b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n" + b"".join(
        b"X-H%d: v\r\n" % i for i in range(100000)) + b"\r\n"
    status = status_of(raw(port, many, read_all=False))
    if status != 431 and not (where == "nginx" and status in (400, 494)):
        fail("%s: 100,000 header fields: %s, want 431" % (where, status))
    some = b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n" + b"".join(
        b"X-H%d: v\r\n" % i for i in range(150)) + b"\r\n"
    status = status_of(raw(port, some, read_all=False))
    if status != 431:
        fail("%s: 150 header fields: %s, want 431" % (where, status))


def check_methods(port, where):
    """(6) PUT, DELETE, PATCH, POST: 405 with Allow; OPTIONS: 204 with Allow."""
    for method in ("PUT", "DELETE", "PATCH", "POST", "OPTIONS"):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request(method, "/api/v1/tables")
        res = c.getresponse()
        res.read()
        c.close()
        want = 204 if method == "OPTIONS" else 405
        if res.status != want or "GET" not in (res.getheader("Allow") or ""):
            fail("%s: %s /api/v1/tables: %d, Allow %r; want %d with Allow"
                 % (where, method, res.status, res.getheader("Allow"), want))


def check_idle_crowd(port, where, want):
    """(4c) 2,000 idle connections, then 3 queries: each answered."""
    crowd = []
    for _ in range(2000):
        try:
            crowd.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        except OSError as e:
            fail("%s: the %dth idle connection: %r" % (where, len(crowd) + 1, e))
            break
    sockets.extend(crowd)
    time.sleep(0.5)
    answered = 0
    for _ in range(3):
        try:
            status, _, body = get(port, "/api/v1/query?rules=kalah&position=" +
                                  POSITION.replace(" ", "+"), timeout=10)
            answered += status == 200 and json.loads(body) == want
        except (OSError, http.client.HTTPException) as e:
            fail("%s: a query beside 2,000 idle connections: %r" % (where, e))
    if answered != 3:
        fail("%s: %d of 3 queries beside 2,000 idle connections answered" % (where, answered))
    for s in crowd:
        s.close()
    return answered


def check_keep_alive_count(port):
    """(4e) One connection carries at most REQUESTS_PER_CONNECTION requests."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    closing = None
    for i in range(1, REQUESTS_PER_CONNECTION + 1):
        c.request("GET", "/api/v1/health")
        res = c.getresponse()
        res.read()
        if res.getheader("Connection", "").lower() == "close":
            closing = i
            break
    c.close()
    if closing != REQUESTS_PER_CONNECTION:
        fail("direct: the connection was closed after request %s, want %d"
             % (closing, REQUESTS_PER_CONNECTION))


def check_burst(port, where, count=300):
    """(4f) `count` connections at once, each a request: all answered, no listen queue overflow."""
    before = listen_overflows()
    results = []
    lock = threading.Lock()
    go = threading.Event()

    def one():
        go.wait()
        try:
            status, _, _ = get(port, "/api/v1/health", timeout=30)
        except (OSError, http.client.HTTPException) as e:
            status = repr(e)
        with lock:
            results.append(status)

    threads = [threading.Thread(target=one) for _ in range(count)]
    for t in threads:
        t.start()
    go.set()
    for t in threads:
        t.join()
    dropped = listen_overflows() - before
    answered = sum(1 for r in results if r in (200, 429))
    if answered != count or dropped:
        fail("%s: a burst of %d connections: %d answered, %d dropped from a full listen queue, "
             "e.g. %s" % (where, count, answered, dropped,
                          [r for r in results if r not in (200, 429)][:3]))


def check_backlog(port):
    """(4f) The listening socket's backlog, as ss shows it (Send-Q)."""
    ss = shutil.which("ss") or "/usr/bin/ss"
    out = subprocess.run([ss, "-Hltn", "sport = :%d" % port], capture_output=True, text=True)
    fields = out.stdout.split()
    somaxconn = int(open("/proc/sys/net/core/somaxconn").read())
    if out.returncode != 0 or len(fields) < 3 or int(fields[2]) != min(BACKLOG, somaxconn):
        fail("direct: ss -ltn for port %d: %r; want a backlog of %d"
             % (port, out.stdout.strip() or out.stderr.strip(), min(BACKLOG, somaxconn)))


class IdleKept:
    """A connection left idle after one answered request; notes when the server closes it."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        sockets.append(self.sock)
        self.sock.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
        reply = b""
        while b"\r\n\r\n" not in reply or not reply.rstrip().endswith(b"}"):
            reply += self.sock.recv(4096)
        self.opened = time.monotonic()
        self.closed_after = None
        self.thread = threading.Thread(target=self.watch, daemon=True)
        self.thread.start()

    def watch(self):
        try:
            while self.sock.recv(4096):
                pass
        except OSError:
            pass
        self.closed_after = time.monotonic() - self.opened

    def check(self, where, timeout):
        self.thread.join(max(0, self.opened + timeout + 5 - time.monotonic()))
        if self.closed_after is None or not timeout - 1 <= self.closed_after <= timeout + 5:
            fail("%s: an idle kept connection closed after %s s, want about %d s"
                 % (where, self.closed_after, timeout))


def check_logs(stderr_path, access_path):
    """(2, 3) Every log line is one line of printable text; none forged; the refused request's
    line names the client and a time under a second."""
    for path, pattern in ((stderr_path, r"^kalah serve: "), (access_path, r"^\S+ - - \[")):
        data = open(path, "rb").read()
        for line in data.split(b"\n")[:-1]:
            text = line.decode("latin-1")
            if re.search(r"[\x00-\x1f\x7f-\xff]", text) or not re.match(pattern, text):
                fail("%s: a line with control bytes or forged: %r" % (os.path.basename(path),
                                                                       text[:120]))
        if data.count(b"listening on") > (1 if path == stderr_path else 0):
            fail("%s: a forged 'listening on' line" % os.path.basename(path))
    garbage = [l for l in open(access_path).read().splitlines() if '"-" 400 ' in l]
    if not garbage or not all(re.match(r'^127\.0\.0\.1 - - \[.*\] "-" 400 \d+ 0\.\d{4}$', l)
                              for l in garbage):
        fail("access log: the garbage request's line: %s" % garbage[:2])


def check_tables(port, where):
    status, _, body = get(port, "/api/v1/tables")
    db = json.loads(body).get("db", "") if status == 200 else None
    if db != "k4.db":
        fail("%s: /api/v1/tables names the database %r, want its name k4.db" % (where, db))


def main():
    nginx = nginx_site.find_nginx(TEST)
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want_files = 8192 if hard == resource.RLIM_INFINITY else min(8192, hard)
    if soft < want_files:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want_files, hard))
    db = os.path.join(WORK, "k4.db")
    subprocess.run([KALAH, "gen", "--rules", "kalah", "--pits", "4", "--max-stones", "10", "--db",
                    db, "--quiet"], check=True, timeout=120)
    want = json.loads(subprocess.run([KALAH, "query", "--db", db, "--rules", "kalah", "--json",
                                      POSITION], capture_output=True, text=True, check=True,
                                     timeout=60).stdout)
    stderr_path = os.path.join(WORK, "serve.stderr")
    access_path = os.path.join(WORK, "serve-access.log")
    err = open(stderr_path, "w")
    server, port, line = servers.start(KALAH, "serve", "--db", db, "--connections", "4",
                                       "--tt-mb", "64", "--access-log", access_path, stderr=err)
    processes.append(server)
    if port is None:
        abort("%s: kalah serve did not start: %r" % (TEST, line))
    proxy, nginx_port = nginx_site.start(nginx, WORK, port, TEST)
    processes.append(proxy)
    started = time.monotonic()
    idle = {"direct": IdleKept(port), "nginx": IdleKept(nginx_port)}
    page_size = len(get(port, "/", {"Accept-Encoding": "identity"})[2])

    for where, p in (("direct", port), ("nginx", nginx_port)):
        check_ranges(p, where, page_size)
        check_bodies(p, where, server.pid)
        check_headers(p, where)
        check_methods(p, where)
        check_tables(p, where)
        check_idle_crowd(p, where, want)
        check_burst(p, where)
        # (2) A newline and a terminal escape in the path, through the logs.
        get(p, "/x%0akalah%20serve:%20listening%20on%20http://evil/%1b[31mRED")
        raw(p, b"GET /x\x1b[31m\nkalah serve: listening on http://evil/ HTTP/1.1\r\n\r\n")
    # (3) Not HTTP at all: 400, logged with its client.
    if status_of(raw(port, b"GARBAGE\r\n\r\n")) != 400:
        fail("direct: GARBAGE: want 400")
    check_keep_alive_count(port)
    check_backlog(port)
    idle["direct"].check("direct", HEADER_SECONDS)
    idle["nginx"].check("nginx", NGINX_KEEPALIVE)

    for proc, name in ((proxy, "nginx"), (server, "kalah serve")):
        code = servers.stop(proc, timeout=20)
        if code != 0:
            fail("%s on SIGTERM: exit %s" % (name, code))
    err.close()
    check_logs(stderr_path, access_path)
    if failed():
        print("--- serve.stderr (last lines)\n" + "".join(open(stderr_path).readlines()[-10:]),
              file=sys.stderr)
        print("%s: %d failure(s)" % (TEST, failed()))
        finish()
    print("%s: all checks passed in %.1f s" % (TEST, time.monotonic() - started))


try:
    main()
finally:
    for s in sockets:
        s.close()
    for p in processes:
        if p.poll() is None:
            p.kill()
            p.wait()
