# SPDX-License-Identifier: Apache-2.0
"""`pip install ./python` with pip's build isolation hides the environment's
PyTorch from setup.py: the build must stop at once with one line giving the
command that works, not a traceback."""
import pathlib
import subprocess
import sys

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
