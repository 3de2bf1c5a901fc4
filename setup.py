"""The Python package kalah for pip (pyproject.toml): CMake builds the compiled module
kalah._kalah (target kalah_python) in its own build folder, setuptools packs it with
solver/library/python/kalah/. The version is the CMake project's."""
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
PACKAGE = ROOT / "solver" / "library" / "python" / "kalah"


def version():
    """MAJOR.MINOR of CMakeLists.txt's project(kalah VERSION ...): the one place it is set."""
    text = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"project\(kalah VERSION ([0-9]+\.[0-9]+)", text)
    if not match:
        sys.exit("setup.py: no project(kalah VERSION X.Y) in CMakeLists.txt")
    return match.group(1)


class CMakeBuild(build_ext):
    """Builds kalah._kalah with CMake for this interpreter (KALAH_CMAKE_ARGS: more arguments,
    e.g. -DKALAH_NATIVE=ON) and copies it where setuptools packs it."""

    def build_extension(self, ext):
        build = Path(self.build_temp).resolve() / "cmake"
        jobs = str(os.cpu_count() or 1)
        configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                     "-DBUILD_TESTING=OFF", "-DPython3_EXECUTABLE=" + sys.executable]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        configure += shlex.split(os.environ.get("KALAH_CMAKE_ARGS", ""))
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "kalah_python", "--parallel",
                        jobs], check=True)
        built = sorted((build / "solver" / "library" / "python" / "kalah").glob("_kalah*.so"))
        if len(built) != 1:
            sys.exit("setup.py: CMake built %d kalah/_kalah*.so in %s, not one" % (len(built), build))
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    version=version(),
    packages=["kalah"],
    package_dir={"kalah": str(PACKAGE.relative_to(ROOT))},
    package_data={"kalah": ["__init__.pyi", "py.typed"]},
    ext_modules=[Extension("kalah._kalah", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": "build-pip"}},
    zip_safe=False,
)
