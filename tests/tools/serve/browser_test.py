#!/usr/bin/env python3
# Browser test of `kalah serve`'s page: headless Chromium over the DevTools pipe opens the default position, loads a position, plays a move, goes back.
"""usage: browser_test.py KALAH DB OUTDIR [--rules R] [--position P] [--chromium PATH] [--timeout SEC]

Starts `KALAH serve --db DB --host 127.0.0.1 --max-time 120` on a free loopback port through
servers.py, drives headless Chromium over --remote-debugging-pipe and checks the page against
`KALAH solve --json` (the default position: every move exact), `KALAH query --json` and `KALAH move`. Writes screenshots into OUTDIR. Exit 0 when every check
passes, 1 with a one-line reason otherwise, 77 when Chromium is not installed (a skip).
"""

import argparse
import base64
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
from checks import fail, finish, skip  # noqa: E402
import servers  # noqa: E402

CHILDREN = []  # Chromium, in its own process group
SERVERS = []  # kalah serve, stopped through servers.stop


class Failure(Exception):
  pass


def stop_children():
  for p in reversed(CHILDREN):
    if p.poll() is None:
      try:
        os.killpg(p.pid, signal.SIGTERM)
      except OSError:
        pass
  for p in reversed(CHILDREN):
    try:
      p.wait(timeout=5)
    except subprocess.TimeoutExpired:
      try:
        os.killpg(p.pid, signal.SIGKILL)
      except OSError:
        pass


# A failure that ends the run: unwinds to main(), which reports it through checks.fail.
def fail_now(reason):
  raise Failure(reason)


def cli_json(kalah, args):
  r = subprocess.run([kalah] + args, capture_output=True, text=True, timeout=120)
  if r.returncode != 0:
    fail_now("kalah %s failed: %s" % (" ".join(args[:1]), (r.stderr.strip() or "exit %d" % r.returncode).splitlines()[-1]))
  return r.stdout


def start_server(kalah, db):
  """kalah serve through servers.start; returns its base URL. Its stderr goes to a file whose last
  line, or else its first line on stdout, the failure reports when it does not start listening."""
  log = tempfile.TemporaryFile()
  proc, port, line = servers.start(kalah, "serve", "--db", db, "--host", "127.0.0.1", "--max-time", "120",
                                   stderr=log)
  SERVERS.append(proc)
  if port is None:
    try:
      status = proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
      fail_now("kalah serve did not start listening; its first line: %r" % line.strip())
    log.seek(0)
    out = log.read().decode(errors="replace").strip().splitlines() or line.strip().splitlines()
    fail_now("kalah serve exited with status %d before listening: %s" % (status, out[-1] if out else "(no output)"))
  return "http://127.0.0.1:%d" % port


def stop_servers():
  for p in SERVERS:
    servers.stop(p)
    p.stdout.close()


class Browser:
  """Chromium driven over the DevTools protocol on fds 3 (commands in) and 4 (messages out)."""

  def __init__(self, chromium, deadline):
    self.deadline = deadline
    self.profile = tempfile.mkdtemp(prefix="kalah-browser-test-")
    to_chrome_r, self.to_chrome = os.pipe()
    self.from_chrome, from_chrome_w = os.pipe()
    # Child's copies above 10 so that moving them to 3 and 4 cannot overwrite one another.
    import fcntl
    cr = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD_CLOEXEC, 10)
    cw = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(to_chrome_r)
    os.close(from_chrome_w)

    def child_fds():
      os.dup2(cr, 3)
      os.dup2(cw, 4)

    args = [chromium, "--headless=new", "--no-sandbox", "--remote-debugging-pipe", "--disable-gpu",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--mute-audio",
            "--disable-background-networking", "--disable-dev-shm-usage", "--hide-scrollbars",
            "--user-data-dir=" + self.profile, "--window-size=1280,900", "about:blank"]
    self.log = tempfile.TemporaryFile()
    self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
                                 preexec_fn=child_fds, close_fds=False, start_new_session=True)
    CHILDREN.append(self.proc)
    os.close(cr)
    os.close(cw)
    self.next_id = 0
    self.replies = {}
    self.events = queue.Queue()
    self.lock = threading.Condition()
    self.closed = False
    self.exceptions = []
    threading.Thread(target=self._reader, daemon=True).start()
    self.session = None

  def log_tail(self):
    self.log.seek(0)
    lines = [l for l in self.log.read().decode(errors="replace").splitlines() if l.strip()]
    return lines[-1] if lines else "(no output)"

  def _reader(self):
    buf = b""
    while True:
      try:
        chunk = os.read(self.from_chrome, 1 << 16)
      except OSError:
        chunk = b""
      if not chunk:
        with self.lock:
          self.closed = True
          self.lock.notify_all()
        return
      buf += chunk
      while b"\0" in buf:
        raw, buf = buf.split(b"\0", 1)
        msg = json.loads(raw)
        if "id" in msg:
          with self.lock:
            self.replies[msg["id"]] = msg
            self.lock.notify_all()
        else:
          if msg.get("method") == "Runtime.exceptionThrown":
            d = msg["params"]["exceptionDetails"]
            self.exceptions.append((d.get("exception") or {}).get("description") or d.get("text"))
          self.events.put(msg)

  def send(self, method, params=None, session=True, timeout=30):
    self.next_id += 1
    mid = self.next_id
    msg = {"id": mid, "method": method, "params": params or {}}
    if session and self.session:
      msg["sessionId"] = self.session
    try:
      os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
    except OSError as e:
      try:
        self.proc.wait(timeout=2)
      except subprocess.TimeoutExpired:
        pass
      fail_now("cannot send %s to Chromium (%s; exit status %s): %s" % (method, e.strerror, self.proc.returncode, self.log_tail()))
    end = min(time.monotonic() + timeout, self.deadline)
    with self.lock:
      while mid not in self.replies:
        if self.closed:
          try:
            self.proc.wait(timeout=2)
          except subprocess.TimeoutExpired:
            pass
          fail_now("Chromium closed the DevTools pipe (exit status %s) during %s: %s" %
               (self.proc.returncode, method, self.log_tail()))
        left = end - time.monotonic()
        if left <= 0:
          fail_now("no DevTools answer to %s in time" % method)
        self.lock.wait(left)
      reply = self.replies.pop(mid)
    if "error" in reply:
      fail_now("DevTools %s: %s" % (method, reply["error"].get("message")))
    return reply.get("result", {})

  def attach(self):
    targets = self.send("Target.getTargets", session=False)["targetInfos"]
    pages = [t for t in targets if t["type"] == "page"]
    if pages:
      target = pages[0]["targetId"]
    else:
      target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
    self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
    self.send("Page.enable")
    self.send("Runtime.enable")
    self.send("Emulation.setDeviceMetricsOverride",
              {"width": 1280, "height": 860, "deviceScaleFactor": 1, "mobile": False})

  def eval(self, expr):
    r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
    if "exceptionDetails" in r:
      fail_now("page script error in %r: %s" % (expr[:60], r["exceptionDetails"].get("text")))
    return r["result"].get("value")

  def wait_for(self, expr, what, timeout=60):
    end = min(time.monotonic() + timeout, self.deadline - 5)  # time left to say what it waited for
    guarded = "(() => { try { return (%s); } catch (e) { return false; } })()" % expr  # the page may still be loading
    while True:
      v = self.eval(guarded)
      if v:
        return v
      if self.exceptions:
        fail_now("JavaScript exception on the page: %s" % self.exceptions[0].splitlines()[0])
      if time.monotonic() > end:
        err = self.eval("(document.getElementById('error')||{}).textContent||''")
        fail_now("timed out waiting for %s%s" % (what, "; the page says: " + err if err else ""))
      time.sleep(0.1)

  def navigate(self, url):
    self.send("Page.navigate", {"url": url})

  def click(self, selector):
    """A real mouse click at the element's centre (it must be visible and on top)."""
    box = self.eval("""(() => { const e = document.querySelector(%s); if (!e) return null;
      e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();
      const x = r.left + r.width / 2, y = r.top + r.height / 2;
      const top = document.elementFromPoint(x, y);
      return {x, y, hit: !!top && (top === e || e.contains(top)), disabled: !!e.disabled}; })()"""
                    % json.dumps(selector))
    if not box:
      fail_now("no element %s on the page" % selector)
    if not box["hit"]:
      fail_now("element %s is covered by another element" % selector)
    if box["disabled"]:
      fail_now("element %s is disabled" % selector)
    for kind in ("mousePressed", "mouseReleased"):
      self.send("Input.dispatchMouseEvent",
                {"type": kind, "x": box["x"], "y": box["y"], "button": "left", "clickCount": 1})

  def screenshot(self, path):
    data = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})["data"]
    with open(path, "wb") as f:
      f.write(base64.b64decode(data))

  def close(self):
    try:
      self.send("Browser.close", session=False, timeout=5)
    except Failure:
      pass
    try:
      self.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
      pass
    shutil.rmtree(self.profile, ignore_errors=True)


def page_state(b):
  """What the page shows: the URL's rules and position, #value's data and text, the moves of #moves."""
  return b.eval("""(() => {
    const v = document.getElementById('value');
    const q = new URLSearchParams(location.search);
    return {url_rules: q.get('rules'), url_position: q.get('position'), state: v.dataset.state || '',
      position: v.dataset.position || '', margin: v.dataset.margin, outcome: v.dataset.outcome || null,
      exact: v.dataset.exact, over: v.dataset.over, text: v.textContent,
      error: document.getElementById('error').textContent,
      board: document.getElementById('board').dataset.position || '',
      moves: [...document.querySelectorAll('#moves [data-pit]')].map(e => ({pit: +e.dataset.pit,
        margin: e.dataset.margin === undefined ? null : +e.dataset.margin, outcome: e.dataset.outcome || null,
        text: e.textContent})),
      pits: Object.fromEntries([...document.querySelectorAll('#board .pit')].map(e =>
        [e.id, {count: +e.querySelector('.count').textContent, playable: !e.disabled}]))};
  })()""")


def wait_shown(b, position, what):
  b.wait_for("(() => { const v = document.getElementById('value'); return v.dataset.state === 'ready' && "
             "v.dataset.position === %s && v.textContent.trim() !== ''; })()" % json.dumps(position),
             "%s (%s) to be shown with its value" % (what, position))
  return page_state(b)


def wait_settled(b, what):
  """Waits for the page's final answer, every value exact; returns the page's state."""
  b.wait_for("(() => { const v = document.getElementById('value'); if (v.dataset.state !== 'ready') return false;"
             " const ms = [...document.querySelectorAll('#moves [data-pit]')];"
             " return v.dataset.exact === 'true' && ms.length > 0 && ms.every(e => e.dataset.margin !== undefined); })()",
             "%s to be shown with every value exact" % what)
  return page_state(b)


def check_default_position(kalah, db, rules, position, shown):
  """The page's default position: its value and every move's as kalah solve gives each child."""
  if shown["url_position"] != position or shown["url_rules"] != rules:
    fail_now("the default position is %s (%s), expected %s (%s)"
         % (shown["url_position"], shown["url_rules"], position, rules))
  def solved(p):
    return json.loads(cli_json(kalah, ["solve", "--json", "--quiet", "--rules", rules, "--db", db, p]))["margin"]
  if shown["margin"] != str(solved(position)):
    fail_now("the default position's value is %s, kalah solve says %d" % (shown["margin"], solved(position)))
  moves = json.loads(cli_json(kalah, ["query", "--json", "--quiet", "--rules", rules, "--db", db, position]))["moves"]
  got = {m["pit"]: m["margin"] for m in shown["moves"]}
  for m in moves:
    child = m["position"]
    want = solved(child) if m["again"] else -solved(child)
    if got.get(m["pit"]) != want:
      fail_now("default position: pit %d shows %s, kalah solve of %s gives %d" % (m["pit"], got.get(m["pit"]), child, want))
  if sorted(got) != sorted(m["pit"] for m in moves):
    fail_now("default position: the page lists pits %s, the legal moves are %s" % (sorted(got), [m["pit"] for m in moves]))


def check_against_cli(kalah, db, rules, position, shown, what):
  q = json.loads(cli_json(kalah, ["query", "--json", "--quiet", "--rules", rules, "--db", db, position]))
  if shown["url_position"] != position:
    fail_now("%s: the URL's position is %r, expected %r" % (what, shown["url_position"], position))
  if shown["url_rules"] != rules:
    fail_now("%s: the URL's rules are %r, expected %r" % (what, shown["url_rules"], rules))
  if shown["board"] != position:
    fail_now("%s: the board shows %r, expected %r" % (what, shown["board"], position))
  if not q["exact"]:
    fail_now("%s: kalah query does not answer %s exactly; pick a position inside the database" % (what, position))
  want_margin = str(q["margin"])
  if shown["margin"] != want_margin or shown["outcome"] != q["outcome"] or shown["exact"] != "true":
    fail_now("%s: the page's value is %s %s (exact %s), kalah query says %s %s" %
         (what, shown["outcome"], shown["margin"], shown["exact"], q["outcome"], q["margin"]))
  text = shown["text"].lower()
  if q["outcome"] not in text and not (q["over"] and "game over" in text):
    fail_now("%s: #value reads %r, which does not say %s" % (what, shown["text"], q["outcome"]))
  if q["margin"] != 0 and str(abs(q["margin"])) not in text:
    fail_now("%s: #value reads %r, which does not show the margin %d" % (what, shown["text"], q["margin"]))
  want_moves = [(m["pit"], m["margin"], m["outcome"]) for m in q["moves"]]
  got_moves = [(m["pit"], m["margin"], m["outcome"]) for m in shown["moves"]]
  if want_moves != got_moves:
    fail_now("%s: #moves lists %s, kalah query says %s" % (what, got_moves, want_moves))
  side = position.split()[1]
  for m in q["moves"]:
    pit = shown["pits"].get("pit-%s%d" % (side, m["pit"]))
    if not pit or not pit["playable"]:
      fail_now("%s: #pit-%s%d is not playable though %d is a legal move" % (what, side, m["pit"], m["pit"]))
  return q


def run(a):
  deadline = time.monotonic() + a.timeout
  kalah = os.path.abspath(a.kalah)
  db = os.path.abspath(a.db)
  os.makedirs(a.outdir, exist_ok=True)
  chromium = a.chromium or shutil.which("chromium") or shutil.which("chromium-browser")
  if not chromium or not os.path.exists(chromium):
    skip("browser_test: no chromium found (--chromium PATH)")
  rules, start = a.rules, a.position

  base = start_server(kalah, db)
  b = Browser(chromium, deadline)
  try:
    b.attach()

    # 0. The page as it opens: the default position, every move exact as kalah solve has it.
    b.navigate(base + "/")
    check_default_position(kalah, db, a.default_rules, a.default_position,
                           wait_settled(b, "the default position"))
    b.screenshot(os.path.join(a.outdir, "browser_default.png"))

    # 1. A position of the database: its value and its moves as kalah query gives them.
    b.navigate(base + "/?rules=%s&position=%s" % (urllib.parse.quote(rules), urllib.parse.quote(start)))
    first = check_against_cli(kalah, db, rules, start, wait_shown(b, start, "the first position"), "first position")
    if not first["moves"]:
      fail_now("the first position %s has no moves; pick one that is not over" % start)
    b.screenshot(os.path.join(a.outdir, "browser_position.png"))

    # 2. Clicking a pit of the side to move plays it: the best move, or --pit.
    pit = a.pit or next(m["pit"] for m in first["moves"] if m["best"])
    if pit not in [m["pit"] for m in first["moves"]]:
      fail_now("pit %d is not a legal move in %s" % (pit, start))
    side = start.split()[1]
    after = cli_json(kalah, ["move", "--rules", rules, start, str(pit)]).strip().splitlines()[0]
    b.click("#pit-%s%d" % (side, pit))
    second = wait_shown(b, after, "the position after pit %d" % pit)
    check_against_cli(kalah, db, rules, after, second, "after pit %d" % pit)
    last = b.eval("document.getElementById('last-move').textContent")
    if "plays %d" % pit not in last:
      fail_now("after pit %d the last-move line reads %r" % (pit, last))
    b.screenshot(os.path.join(a.outdir, "browser_after_move.png"))

    # 3. The browser's back restores the first position.
    b.eval("history.back()")
    check_against_cli(kalah, db, rules, start, wait_shown(b, start, "the first position after back()"), "after back()")

    # 4. The same move from the move list, then the page's Back button.
    b.click("#moves [data-pit='%d']" % pit)
    wait_shown(b, after, "the position after pit %d from the move list" % pit)
    b.click("#back")
    check_against_cli(kalah, db, rules, start, wait_shown(b, start, "the first position after #back"), "after #back")

    # 5. A bad position: the server's message in #error, not a blank page.
    b.navigate(base + "/?rules=%s&position=%s" % (urllib.parse.quote(rules), urllib.parse.quote("1,2,3/4,5 S")))
    err = b.wait_for("document.getElementById('error').textContent.trim()", "#error to show the server's message")
    b.screenshot(os.path.join(a.outdir, "browser_error.png"))
    if b.exceptions:
      fail_now("JavaScript exception on the page: %s" % b.exceptions[0].splitlines()[0])
    print("browser_test: OK: %s -> pit %d -> %s -> back; bad position: %s" % (start, pit, after, err))
    return 0
  finally:
    b.close()


def main():
  ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  ap.add_argument("kalah")
  ap.add_argument("db")
  ap.add_argument("outdir")
  ap.add_argument("--rules", default="kalah")
  ap.add_argument("--position", default="1,0,2,0,1,0,10/0,1,0,2,1,0,12 S",
                  help="a position inside the database, not over")
  ap.add_argument("--pit", type=int, default=0, help="the move to click (default: the first best move)")
  ap.add_argument("--default-rules", default="wetherell", help="the rule set of the page's default position")
  ap.add_argument("--default-position", default="3,3,3,3,3,0/3,3,3,3,3,0 S",
                  help="the page's default position with DB (the start of its first table's game)")
  ap.add_argument("--chromium", default="")
  ap.add_argument("--timeout", type=float, default=170, help="seconds for the whole test")
  a = ap.parse_args()

  def on_alarm(signum, frame):
    raise Failure("the whole test ran past %g s" % a.timeout)

  signal.signal(signal.SIGALRM, on_alarm)
  signal.alarm(int(a.timeout) + 15)
  try:
    run(a)
  except Failure as e:
    fail("browser_test: %s" % e)
  except Exception as e:  # a bug of this script or an unexpected answer: still one line
    fail("browser_test: %s: %s" % (type(e).__name__, e))
  finally:
    signal.alarm(0)
    stop_children()
    stop_servers()
  finish()


if __name__ == "__main__":
  main()
