"""A script test's checks: each printed as "ok: ..." or "FAILED: ...", and counted for its exit status."""
import sys

_failures = 0


def check(ok, what):
    """Prints what with ok or FAILED; a failure makes finish() exit 1."""
    global _failures
    print(("ok: " if ok else "FAILED: ") + what, flush=True)
    if not ok:
        _failures += 1


def finish():
    """Exits: 1 when any check failed, else 0."""
    sys.exit(1 if _failures else 0)
