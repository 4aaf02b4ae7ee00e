"""Run one standalone script in CPython and in the pinned Pyodide under Node; each prints one JSON line.

Shared by test_mha_pyodide.py and test_training_pyodide.py (run_in_pyodide.mjs mounts py/ and site/).
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("run_in_pyodide.mjs")


def run_cpython(script):
    """The script's last printed line, as JSON, from this CPython with py/ on its path."""
    out = subprocess.run([sys.executable, script], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT / "py")})
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_pyodide(script, timeout=300):
    """The same from Pyodide under Node; fails loudly if node or node_modules/pyodide is missing."""
    if shutil.which("node") is None or not (ROOT / "node_modules" / "pyodide").is_dir():
        pytest.fail("node and node_modules/pyodide are needed: run the README's test command (it runs npm ci)")
    out = subprocess.run(["node", RUNNER, script], capture_output=True, text=True, cwd=ROOT, timeout=timeout)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])
