"""pip's entry to the Python package: setuptools (Debian's python3-setuptools) with a build_ext that runs the
project's own CMake build (-DTERN_BUILD_PYTHON=ON, target tern_python) and copies the module it makes into
the wheel. Everything comes from Debian's archive (pybind11-dev, python3-dev, cmake, the libraries
`scripts/setup.sh test` installs): `pip install --no-build-isolation --no-index ./targets/python` works offline.
The module links libtern and the converter statically; the system libraries it needs (XNNPACK, cpuinfo,
SentencePiece, ICU) are in the loader's default path, so no LD_LIBRARY_PATH.
"""

import os
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def version():
    with open(os.path.join(ROOT, "runtime", "include", "tern", "version.h")) as f:
        return re.search(r'TERN_VERSION_STRING "([^"]+)"', f.read()).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        configure = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release", "-DTERN_BUILD_TESTS=OFF",
                     "-DTERN_BUILD_PYTHON=ON", "-DPython_EXECUTABLE=" + sys.executable]
        if shutil.which("ninja") and not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            configure += ["-G", "Ninja"]
        subprocess.check_call(configure)
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "tern_python"])
        built = os.path.join(build_dir, "python", "tern", "_tern" + sysconfig.get_config_var("EXT_SUFFIX"))
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(built, dest)


setup(
    name="tern",
    version=version(),
    description="int8/int4 Transformer translation (MarianMT / OPUS-MT) for small devices",
    packages=["tern", "tern.compat"],
    package_data={"tern": ["*.pyi", "py.typed"]},
    ext_modules=[Extension("tern._tern", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    install_requires=["numpy"],
    zip_safe=False,
)
