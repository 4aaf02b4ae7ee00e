"""The same package runs inside real Pyodide (the pinned npm `pyodide`, under Node) with the same numbers."""

import math
from pathlib import Path

from interpreters import run_cpython, run_pyodide

CASES = Path(__file__).with_name("pyodide_cases.py")


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
    cpython, pyodide = run_cpython(CASES), run_pyodide(CASES, timeout=120)
    assert_close(cpython, pyodide)
    # uniform() draws need no libm: the learned projections match to the bit
    assert cpython["projections"] == pyodide["projections"]
    assert [round(w, 4) for w in pyodide["lesson"][0][0]] == [0.5177, 0.4823]
