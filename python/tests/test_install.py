# SPDX-License-Identifier: Apache-2.0
"""`pip install ./python` with pip's build isolation hides the environment's
PyTorch from setup.py: the build must stop at once with one line giving the
command that works, not a traceback."""
import os
import pathlib
import subprocess
import sys

import pytest

SETUP = pathlib.Path(__file__).resolve().parents[1] / "setup.py"


def test_setup_without_torch_says_what_to_run():
    code = ("import runpy, sys; sys.modules['torch'] = None; "
            f"sys.argv = ['setup.py', 'egg_info']; runpy.run_path({str(SETUP)!r}, run_name='__main__')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=SETUP.parent, timeout=120)
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "pip install --no-build-isolation ./python" in lines[0]
    assert "Traceback" not in r.stderr


@pytest.mark.skipif(not os.environ.get("CLOPS_TEST_WHEEL"),
                    reason="builds a wheel (minutes): set CLOPS_TEST_WHEEL=1")
def test_wheel_builds_with_progress_and_installs_in_a_fresh_venv(tmp_path):
    """`pip wheel --no-deps --no-build-isolation ./python` on a terminal (a
    pty from script(1)) shows the build's progress without -v, and the wheel
    installs into a fresh virtual environment and runs an op there.  The
    fresh environment borrows this one's PyTorch through a .pth file (a
    second 5 GB PyTorch download is not the point), after its own
    site-packages, so clops comes from the wheel."""
    import shlex
    import sysconfig
    wheels = tmp_path / "wheels"
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
           str(SETUP.parent), "-w", str(wheels)]
    r = subprocess.run(["script", "-qec", shlex.join(pip), "/dev/null"], capture_output=True,
                       text=True, timeout=1800, env=dict(os.environ, CLOPS_BUILD_PROGRESS=""))
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert "clops: libclops.a" in r.stdout and "clops: extension" in r.stdout, r.stdout[-4000:]
    print("\n".join(line.strip() for line in r.stdout.splitlines() if "clops:" in line))
    wheel = next(wheels.glob("clops-*.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    site = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True).stdout.strip()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}   # nothing else's clops
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True,
                   timeout=600, env=env)
    # after the install: pip would take the borrowed clops for installed
    pathlib.Path(site, "borrowed_torch.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    code = ("import torch, clops.torch; print(clops.torch.__file__); "
            "print((torch.arange(4.0, device='clops') * 2).cpu().tolist())")
    r = subprocess.run([str(py), "-c", code], capture_output=True, text=True, timeout=600,
                       cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr[-4000:]
    where, values = r.stdout.strip().splitlines()[-2:]
    assert where.startswith(site), where
    assert values == "[0.0, 2.0, 4.0, 6.0]"
