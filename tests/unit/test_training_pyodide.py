"""Training runs inside real Pyodide (the pinned npm `pyodide`, under Node) to the same numbers as CPython."""

import math
import random
from pathlib import Path

from interpreters import run_cpython, run_pyodide
from mha.training import count_params, init_params

CASES = Path(__file__).with_name("training_cases.py")
# CPython 3.11's dot is sum(map(mul)), Pyodide's (3.14) is math.sumprod (compensated), so
# single products differ in the last bit (~1e-16) and 20 Adam steps carry that forward;
# measured 5e-16 at most (seed 0); 1e-9 leaves room and still catches any real change.
TOLERANCE = 1e-9


def flatten(value):
    """Every number of nested dicts and lists, in order."""
    if isinstance(value, dict):
        return [x for key in sorted(value) for x in flatten(value[key])]
    if isinstance(value, list):
        return [x for item in value for x in flatten(item)]
    return [value]


def test_twenty_steps_in_pyodide_give_cpythons_losses_and_params():
    cpython, pyodide = run_cpython(CASES), run_pyodide(CASES)
    a, b = flatten(cpython), flatten(pyodide)
    assert len(a) == len(b) == 20 + count_params(init_params(random.Random(0)))  # losses, the default shape's params
    worst = max(abs(x - y) for x, y in zip(a, b))
    assert worst <= TOLERANCE, f"largest difference {worst}"
    assert all(math.isfinite(x) for x in b)
