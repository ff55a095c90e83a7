"""Builds weft's Python package: the torch.distributed backend (weft._C) and libweft.

libweft comes from an installed weft (WEFT_PREFIX=/opt/weft, made by tools/install.sh)
or, without it, is built here with the repository's own tools/install.sh (Bazel,
optimized; WEFT_BAZEL_OPTIONS replaces the options, e.g. "-c fastbuild"). Either way
libweft.so is copied into the package, next to the extension, which finds it there.

torch must be installed first, and the build must see it:
    pip install --no-build-isolation ./python
"""

import os
import shlex
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def weft_prefix(build_temp: Path) -> Path:
    given = os.environ.get("WEFT_PREFIX")
    if given:
        return Path(given).resolve()
    prefix = build_temp / "weft-prefix"
    options = shlex.split(os.environ.get("WEFT_BAZEL_OPTIONS", "-c opt"))
    subprocess.run([str(REPO / "tools" / "install.sh"), str(prefix), *options], check=True)
    return prefix


class BuildWithLibweft(BuildExtension):
    """Builds (or finds) libweft before the extension, and ships it in the package."""

    def build_extensions(self):
        prefix = weft_prefix(Path(self.build_temp).resolve())
        library = prefix / "lib" / "libweft.so"
        if not library.exists():
            raise RuntimeError(f"weft: {library} does not exist; is {prefix} a weft install?")
        for ext in self.extensions:
            ext.include_dirs.append(str(prefix / "include"))
            ext.library_dirs.append(str(prefix / "lib"))
            # Beside the extension, wherever it goes (the wheel, or the source tree for
            # an in-place build): its run path is $ORIGIN.
            package_dir = Path(self.get_ext_fullpath(ext.name)).parent
            package_dir.mkdir(parents=True, exist_ok=True)
            shutil.copy2(library, package_dir / "libweft.so")
        self.libweft = library
        super().build_extensions()

    def copy_extensions_to_source(self):
        """An in-place build (setup.py build_ext --inplace, pip install -e) puts libweft
        beside the extension in the source tree too."""
        super().copy_extensions_to_source()
        shutil.copy2(self.libweft, HERE / "weft" / "libweft.so")


sources = ["backend.cc", "module.cc", "tensors.cc", "torch_store.cc", "watcher.cc", "work.cc"]

setup(
    ext_modules=[
        CppExtension(
            name="weft._C",
            sources=[f"csrc/{s}" for s in sources],
            libraries=["weft"],
            extra_compile_args=["-std=c++20", "-O2"],
            extra_link_args=["-Wl,-rpath,$ORIGIN"],
        )
    ],
    cmdclass={"build_ext": BuildWithLibweft},
)
