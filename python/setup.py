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
import contextlib
import os
import re
import subprocess
import sys
import threading
import time

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


class Progress:
    """Progress of the build on the user's terminal while pip hides it.

    pip runs this script with its output in a pipe and, until the build
    ends, shows only "still running..." (the whole log only with -v or on
    failure); the build takes minutes (libclops.a, then the extension's
    translation units).  While a build step runs, the process's stdout and
    stderr go through a pipe whose lines are passed on unchanged (pip's log
    keeps everything) and summed up, one short line per step, on the
    controlling terminal (/dev/tty) when there is one and stdout is not it:
    "clops: libclops.a 45%", "clops: extension 3/7 device.cpp".
    CMake's percentages are shown in steps of 10.  CLOPS_BUILD_PROGRESS=0
    turns it off, =stderr writes the summaries into the captured output
    instead (pip -v, logs)."""

    STEP = re.compile(r"^\[\s*(\d+)%\]|^\[(\d+)/(\d+)\]")

    def __init__(self):
        self.out = None
        self.shown = -1      # the last CMake percentage shown
        mode = os.environ.get("CLOPS_BUILD_PROGRESS", "")
        if mode == "0":
            return
        if mode == "stderr":
            self.out = os.fdopen(os.dup(2), "w")
            return
        if sys.stdout.isatty():
            return
        try:
            self.out = open("/dev/tty", "w")
        except OSError:
            self.out = None

    def say(self, text):
        if self.out:
            try:
                self.out.write(f"\rclops: {text}\n")
                self.out.flush()
            except OSError:
                self.out = None

    def summarize(self, what, line):
        m = self.STEP.match(line)
        if not m:
            return
        if m.group(1) is not None:
            pct = int(m.group(1)) // 10 * 10
            if pct != self.shown:
                self.shown = pct
                self.say(f"{what} {m.group(1)}%")
        else:
            src = re.search(r"-c (?:-c )?(\S+\.cpp)", line)
            name = os.path.basename(src.group(1)) if src else ""
            self.say(f"{what} {m.group(2)}/{m.group(3)} {name}".rstrip())

    @contextlib.contextmanager
    def step(self, what):
        """Runs the body with fds 1 and 2 through a pipe whose lines are
        passed on and summarized as steps of `what`."""
        if not self.out:
            yield
            return
        start = time.monotonic()
        self.say(f"{what}: started (pip shows the full log with -v)")
        sys.stdout.flush()
        sys.stderr.flush()
        saved = [os.dup(1), os.dup(2)]
        rd, wr = os.pipe()
        os.dup2(wr, 1)
        os.dup2(wr, 2)
        os.close(wr)

        def pump():
            with os.fdopen(rd, "rb") as pipe:
                for raw in pipe:
                    os.write(saved[0], raw)
                    self.summarize(what, raw.decode("utf-8", "replace"))

        t = threading.Thread(target=pump, daemon=True)
        t.start()
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)     # closes the pipe's last write ends
            os.dup2(saved[1], 2)
            # A daemon the build started (a compiler cache's server) may keep
            # the pipe open: stop waiting then, and leave the thread its fd.
            t.join(timeout=10)
            if not t.is_alive():
                os.close(saved[0])
            os.close(saved[1])
            self.say(f"{what}: done in {time.monotonic() - start:.0f} s")


PROGRESS = Progress()


def clops_build_dir():
    """Configures (if needed) and builds libclops.a; returns the build folder."""
    build = os.path.abspath(os.environ.get("CLOPS_BUILD_DIR", os.path.join(ROOT, "build")))
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release"])
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
    with PROGRESS.step("libclops.a"):
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
             "csrc/compile.cpp", "csrc/memory.cpp", "csrc/stream.cpp", "csrc/complex.cpp"],
    include_dirs=[os.path.join(ROOT, "include"), os.path.join(build, "generated", "include"),
                  os.path.join(HERE, "csrc")],
    define_macros=[("CLOPS_STATIC", "1")],
    extra_compile_args=["-O2", "-Wall", "-Wno-unused-parameter"],
    extra_objects=[lib],
    libraries=["OpenCL", "clblast", "xxhash", "m", "pthread", "dl"],
)

class BuildWithProgress(BuildExtension):
    """torch's BuildExtension (ninja), its output summarized on the terminal."""

    def build_extensions(self):
        with PROGRESS.step("extension"):
            super().build_extensions()


# The PyTorch release the extension is compiled against (its C++ ABI); the
# local label (+cu132, +cpu) is left out so any build of that release fits.
TORCH_RELEASE = torch.__version__.split("+")[0]

setup(ext_modules=[ext], install_requires=[f"torch=={TORCH_RELEASE}", "pyyaml"],
      cmdclass={"build_ext": BuildWithProgress.with_options(use_ninja=True)})
