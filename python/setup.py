# SPDX-License-Identifier: Apache-2.0
"""Builds clops.torch._C, the PyTorch device bridge, against the installed PyTorch.

The extension links libclops statically (libclops.a), so the installed package
needs no library path.  libclops comes from the clops CMake tree this package
sits in: CLOPS_BUILD_DIR (default: ../build next to this directory) is brought
up to date with `cmake --build DIR --target clops_static`, after configuring
it when it has no CMakeCache.txt.  So `pip install --no-build-isolation ./python`
works from a fresh clone, and reuses the build the C test suite made.

The extension must be compiled against the PyTorch it will run with, the
one installed in the environment.  pip's default build isolation hides that
PyTorch (the build runs in a fresh environment holding only the build
requirements), so without torch importable the build stops at once with
the command that works.
"""
import os
import subprocess
import sys

try:
    import torch  # noqa: F401
except ImportError:
    sys.exit("clops: the extension builds against the PyTorch installed in this environment, "
             "which pip's build isolation hides: install PyTorch (pip install torch), then "
             "run: pip install --no-build-isolation ./python")

from setuptools import setup  # noqa: E402
from torch.utils.cpp_extension import BuildExtension, CppExtension  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def clops_build_dir():
    """Configures (if needed) and builds libclops.a; returns the build folder."""
    build = os.path.abspath(os.environ.get("CLOPS_BUILD_DIR", os.path.join(ROOT, "build")))
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release"])
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
    subprocess.check_call(["cmake", "--build", build, "--target", "clops_static", "-j", jobs])
    return build


def copy_inventory():
    """The pointwise inventory torch.compile(backend="clops") reads the ops'
    expressions from (clops/torch/_compile.py), installed with the package."""
    import shutil
    dst = os.path.join(HERE, "clops", "torch", "_inventory")
    os.makedirs(dst, exist_ok=True)
    for f in ("pointwise_unary.yaml", "pointwise_binary.yaml"):
        shutil.copyfile(os.path.join(ROOT, "dispatch", "inventory", f), os.path.join(dst, f))


copy_inventory()
build = clops_build_dir()
lib = os.path.join(build, "libclops.a")
if not os.path.exists(lib):
    sys.exit(f"clops: {lib} was not built")

ext = CppExtension(
    name="clops.torch._C",
    sources=["csrc/device.cpp", "csrc/generic.cpp", "csrc/autocast.cpp", "csrc/attention.cpp",
             "csrc/compile.cpp", "csrc/memory.cpp"],
    include_dirs=[os.path.join(ROOT, "include"), os.path.join(build, "generated", "include"),
                  os.path.join(HERE, "csrc")],
    define_macros=[("CLOPS_STATIC", "1")],
    extra_compile_args=["-O2", "-Wall", "-Wno-unused-parameter"],
    extra_objects=[lib],
    libraries=["OpenCL", "clblast", "xxhash", "m", "pthread"],
)

setup(ext_modules=[ext], cmdclass={"build_ext": BuildExtension.with_options(use_ninja=True)})
