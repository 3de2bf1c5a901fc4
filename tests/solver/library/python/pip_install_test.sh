#!/usr/bin/env bash
# `pip install --no-build-isolation .` and `pip wheel .` from the checkout, as docs/LIBRARY.md
# gives them: the package installs into a virtual environment, and its wheel into a fresh one
# (no system site packages), where `import kalah` works with nothing else on the path; the
# installed module answers as the kalah binary does, and its numpy calls run where numpy is.
# usage: pip_install_test.sh KALAH_BINARY PYTHON   (exit 0 when every check holds)
set -euo pipefail
kalah=$1 python=$2
root=$(cd "$(dirname "$0")/../../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The build environment: Debian's setuptools, wheel and numpy through the system site packages.
"$python" -m venv --system-site-packages "$work/build-env"
(cd "$root" && "$work/build-env/bin/pip" install -q --no-build-isolation --no-deps .)
(cd "$root" && "$work/build-env/bin/pip" wheel -q --no-build-isolation --no-deps -w "$work/wheels" .)
"$python" -m venv "$work/fresh"
"$work/fresh/bin/pip" install -q --no-index "$work"/wheels/kalah-*.whl

"$kalah" gen --rules kalah --pits 6 --max-stones 8 --quiet --db "$work/k6.db"
position="1,0,2,1,0,0,20/0,1,0,2,1,0,20 S"
want=$("$kalah" query --rules kalah --db "$work/k6.db" --json "$position")
version=$(sed -n 's/^project(kalah VERSION \([0-9]*\.[0-9]*\).*/\1/p' "$root/CMakeLists.txt")

cd "$work"  # not the checkout: nothing of it on the path
"$work/fresh/bin/python" - "$work" "$work/k6.db" "$position" "$want" "$version" <<'PY'
import json, os, sys
work, db_path, position, want, version = sys.argv[1:]
import kalah
where = os.path.dirname(kalah.__file__)
assert where.startswith(os.path.join(work, "fresh")), "kalah from %s" % where
assert kalah.__version__ == version, (kalah.__version__, version)
assert os.path.isfile(os.path.join(where, "__init__.pyi")) and os.path.isfile(os.path.join(where, "py.typed"))
with kalah.Database(db_path) as db:
    got = json.loads(db.query("kalah", position).to_json())
    assert got == json.loads(want), (got, want)
    try:
        db.values("kalah", [[0] * 14])
        raise AssertionError("values() ran without numpy")
    except ImportError as e:
        assert "needs numpy" in str(e), e
print("pip install test: the wheel in a fresh venv: kalah %s from %s" % (kalah.__version__, where))
PY
"$work/build-env/bin/python" - "$work" "$work/k6.db" <<'PY'
import os, sys
work, db_path = sys.argv[1:]
import kalah
assert os.path.dirname(kalah.__file__).startswith(os.path.join(work, "build-env")), kalah.__file__
with kalah.Database(db_path) as db:
    boards, margins = db.sample("kalah", 6, 8, 1000, seed=3)
    got = db.values("kalah", boards)
    assert got.count() == len(margins) and (got.data == margins).all()
print("pip install test: pip install --no-build-isolation . with numpy: values() and sample() agree")
PY
