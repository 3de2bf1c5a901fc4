"""The script tests' one way to start and stop a `kalah` server (serve, referee) on a free
loopback port: `--port 0`, then the port from its first line, `... listening on [http://]HOST:PORT`."""
import re
import subprocess

_LISTENING = re.compile(r"listening on (?:http://)?127\.0\.0\.1:(\d+)")


def start(kalah, command, *args, stderr=subprocess.DEVNULL):
    """Starts `kalah COMMAND --port 0 ARGS...`; returns (process, port, first line). The port is
    None when the server did not start listening: the process has then ended or is left to the
    caller (its stdout at the first line's end). An exception while it waits for that line (a
    caller's alarm) kills the process before the exception leaves start()."""
    proc = subprocess.Popen([kalah, command, "--port", "0", *args], stdout=subprocess.PIPE,
                            stderr=stderr, text=True)
    try:
        line = proc.stdout.readline()
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    found = _LISTENING.search(line)
    return proc, int(found.group(1)) if found else None, line


def stop(proc, timeout=30):
    """SIGTERM, then the exit status; None when the process outlived the timeout (then killed)."""
    proc.terminate()
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None
