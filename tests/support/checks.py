"""The one way a script test fails: every failure printed as "FAILED: ..." and counted, and the
exit status from the count (finish: 0 or 1); abort() for a test that cannot go on (exit 1), skip()
for one whose tools are missing (exit 77, CTest's SKIP_RETURN_CODE)."""
import sys

_failures = 0


def check(ok, what):
    """Prints what with ok or FAILED; a failure makes finish() exit 1. Returns ok."""
    global _failures
    print(("ok: " if ok else "FAILED: ") + what, flush=True)
    if not ok:
        _failures += 1
    return ok


def expect(ok, what):
    """A check printed only when it fails (what names the failure). Returns ok."""
    if not ok:
        fail(what)
    return ok


def fail(what):
    """A failure the script found itself: check(False, what)."""
    check(False, what)


def failed():
    """The failures so far."""
    return _failures


def abort(what):
    """A failure after which the test cannot go on: prints it and exits 1 at once."""
    fail(what)
    sys.exit(1)


def skip(why):
    """The test cannot run here (a missing tool): prints why and exits 77."""
    print("skipped: " + why, flush=True)
    sys.exit(77)


def finish():
    """Exits: 1 when any check failed, else 0."""
    sys.exit(1 if _failures else 0)
