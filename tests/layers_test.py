#!/usr/bin/env python3
"""The layers as the build enforces them: a file of one library or test room, compiled with its
own flags (BUILD/compile_commands.json), includes a header of each other library. An include the
layers allow must compile; one they forbid (a lower layer reaching up, a solver reaching into the
other, a tool past the public library) must fail with "No such file".

usage: layers_test.py BUILD_DIR   (exit 0 when every case holds, 1 otherwise)"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
from checks import check, fail, failed, finish  # noqa: E402

# (a source of the library, a header it includes, whether the layers allow it)
CASES = [
    ("engine/position.cpp", "engine/board.hpp", True),
    ("engine/position.cpp", "db/store.hpp", False),
    ("db/store.cpp", "engine/position.hpp", True),
    ("db/store.cpp", "solver/exhaustive/solve.hpp", False),
    ("db/store.cpp", "solver/retrograde/build.hpp", False),
    ("solver/retrograde/build.cpp", "db/store.hpp", True),
    ("solver/retrograde/build.cpp", "solver/exhaustive/solve.hpp", False),
    ("solver/exhaustive/solve.cpp", "db/probe.hpp", True),
    ("solver/exhaustive/solve.cpp", "solver/retrograde/build.hpp", False),
    ("solver/exhaustive/solve.cpp", "solver/answers/query.hpp", False),
    ("solver/exhaustive/solve.cpp", "solver/session/checkpoint.hpp", False),
    ("solver/session/checkpoint.cpp", "solver/exhaustive/solve.hpp", True),
    ("solver/session/checkpoint.cpp", "solver/answers/query.hpp", False),
    ("solver/answers/query.cpp", "solver/exhaustive/solve.hpp", True),
    ("solver/answers/query.cpp", "solver/session/checkpoint.hpp", False),
    ("solver/library/api/database.cpp", "solver/answers/query.hpp", True),
    ("solver/library/api/database.cpp", "solver/retrograde/build.hpp", False),
    ("tools/serve/web_server.cpp", "kalah/kalah.hpp", True),
    ("tools/serve/web_server.cpp", "engine/position.hpp", True),
    ("tools/serve/web_server.cpp", "db/store.hpp", False),
    ("tools/serve/web_server.cpp", "solver/exhaustive/solve.hpp", False),
    ("tools/serve/web_server.cpp", "solver/library/api/table_probe_impl.hpp", False),
    ("tools/kgp/kgp_client.cpp", "solver/answers/query.hpp", True),
    ("tools/kgp/kgp_client.cpp", "solver/retrograde/build.hpp", False),
    ("tools/kgp/kgp_client.cpp", "tools/serve/web_server.hpp", False),
    ("tools/referee/grading.cpp", "tools/kgp/kgp_protocol.hpp", True),
    ("tools/referee/grading.cpp", "tools/cli/options.hpp", False),
    ("tools/cli/cmd_solve.cpp", "solver/session/checkpoint.hpp", True),
    ("tools/cli/cmd_solve.cpp", "solver/retrograde/build.hpp", True),
    # A test room's binary sees its layer, the shared helpers and nothing above.
    ("tests/engine/perft_test.cpp", "tests/support/reference.hpp", True),
    ("tests/engine/perft_test.cpp", "db/store.hpp", False),
    ("tests/db/index_test.cpp", "db/store.hpp", True),
    ("tests/db/index_test.cpp", "solver/exhaustive/solve.hpp", False),
    ("tests/solver/session/solve_session_test.cpp", "solver/answers/query.hpp", False),
    ("tests/tools/kgp/kgp_protocol_test.cpp", "tools/serve/web_server.hpp", False),
    ("tests/tools/serve/serve_readers_test.cpp", "solver/exhaustive/solve.hpp", False),
]


def compile_with(entry, header, workdir):
  source = os.path.join(workdir, "probe.cpp")
  with open(source, "w") as f:
    f.write('#include "%s"\n' % header)
  args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
  out, kept, skip = [], [], False
  for a in args:
    if skip:
      skip = False
      continue
    if a in ("-o", "-MF", "-MT", "-MQ"):
      skip = True
      continue
    if a in ("-MD", "-MMD") or a == entry["file"]:
      continue
    kept.append(a)
  out = kept + ["-fsyntax-only", source]
  r = subprocess.run(out, cwd=entry["directory"], capture_output=True, text=True)
  return r.returncode == 0, r.stderr


def main():
  build = sys.argv[1]
  root = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
  with open(os.path.join(build, "compile_commands.json")) as f:
    entries = {os.path.realpath(e["file"]): e for e in json.load(f)}
  with tempfile.TemporaryDirectory() as workdir:
    for source, header, allowed in CASES:
      entry = entries.get(os.path.realpath(os.path.join(root, source)))
      if entry is None:
        fail("%s: not in compile_commands.json" % source)
        continue
      compiled, err = compile_with(entry, header, workdir)
      refused = not compiled and "No such file" in err
      ok = compiled if allowed else refused
      what = "compiles" if compiled else ("refused" if refused else "fails otherwise")
      check(ok, "%s -> %s: %s" % (source, header, what))
      if not ok:
        if not compiled:
          print(err.strip().splitlines()[0] if err.strip() else "(no message)")
  print("%d of %d cases hold" % (len(CASES) - failed(), len(CASES)))
  finish()


if __name__ == "__main__":
  main()
