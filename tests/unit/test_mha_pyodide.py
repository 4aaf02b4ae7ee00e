"""The same package runs inside real Pyodide (the pinned npm `pyodide`, under Node) with the same numbers."""

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).with_name("pyodide_cases.py")
RUNNER = Path(__file__).with_name("run_in_pyodide.mjs")


def run_cpython():
    out = subprocess.run([sys.executable, CASES], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT / "py")})
    return json.loads(out.stdout)


def run_pyodide():
    if shutil.which("node") is None or not (ROOT / "node_modules" / "pyodide").is_dir():
        pytest.fail("node and node_modules/pyodide are needed: run the README's test command (it runs npm ci)")
    out = subprocess.run(["node", RUNNER, CASES], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def assert_close(a, b, path="result"):
    """Nested lists of floats agree to 1e-12 (libm's exp may differ in the last bit)."""
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for key in a:
            assert_close(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_close(x, y, f"{path}[{i}]")
    else:
        assert math.isclose(a, b, rel_tol=0, abs_tol=1e-12), f"{path}: CPython {a!r} vs Pyodide {b!r}"


def test_pyodide_gives_the_same_numbers_as_cpython():
    cpython, pyodide = run_cpython(), run_pyodide()
    assert_close(cpython, pyodide)
    # uniform() draws need no libm: the learned projections match to the bit
    assert cpython["projections"] == pyodide["projections"]
    assert [round(w, 4) for w in pyodide["lesson"][0][0]] == [0.5177, 0.4823]
