"""Training runs inside real Pyodide (the pinned npm `pyodide`, under Node) to the same numbers as CPython."""

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).with_name("training_cases.py")
# Load Pyodide, put py/ on its path, run CASES (prints what it prints); argv[1] is the root.
RUNNER = """
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { loadPyodide } from "pyodide";
const root = process.argv[1], script = process.argv[2];
const pyodide = await loadPyodide({ stdout: (line) => console.log(line), stderr: (line) => console.error(line) });
pyodide.FS.mkdirTree("/project/py");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: resolve(root, "py") }, "/project/py");
pyodide.runPython("import sys; sys.path.insert(0, '/project/py')");
await pyodide.runPythonAsync(readFileSync(script, "utf8"));
"""
# CPython 3.11's dot is sum(map(mul)), Pyodide's (3.14) is math.sumprod (compensated), so
# single products differ in the last bit (~1e-16) and 20 Adam steps carry that forward;
# measured 5e-16 at most (seed 0); 1e-9 leaves room and still catches any real change.
TOLERANCE = 1e-9


def run_cpython():
    out = subprocess.run([sys.executable, CASES], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT / "py")})
    return json.loads(out.stdout)


def run_pyodide():
    if shutil.which("node") is None or not (ROOT / "node_modules" / "pyodide").is_dir():
        pytest.fail("node and node_modules/pyodide are needed: run the README's test command (it runs npm ci)")
    out = subprocess.run(["node", "--input-type=module", "-e", RUNNER, str(ROOT), str(CASES)],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def flatten(value):
    """Every number of nested dicts and lists, in order."""
    if isinstance(value, dict):
        return [x for key in sorted(value) for x in flatten(value[key])]
    if isinstance(value, list):
        return [x for item in value for x in flatten(item)]
    return [value]


def test_twenty_steps_in_pyodide_give_cpythons_losses_and_params():
    cpython, pyodide = run_cpython(), run_pyodide()
    a, b = flatten(cpython), flatten(pyodide)
    assert len(a) == len(b) == 20 + 1404
    worst = max(abs(x - y) for x, y in zip(a, b))
    assert worst <= TOLERANCE, f"largest difference {worst}"
    assert all(math.isfinite(x) for x in b)
