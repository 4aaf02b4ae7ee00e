"""The house's rules that a reader of the tree relies on, checked on the tree itself.

- app/main.py is the only site module that imports the browser (pyscript, js, pyodide.ffi);
  the other glue modules (app/cells.py, app/training.py) receive what they need from it.
- Imports in site/ point down: each package stands on a floor (FLOORS), and a module imports only
  its own package and packages on lower floors. The glue is on top, the math at the bottom.
- py/mha imports nothing beyond the standard library (and itself): it runs unchanged in CPython
  and in Pyodide, and never touches the page.
- py/mha holds no module-level state: every name a module of it binds is a module, a function,
  a class, or a value that cannot change (what a call computes depends only on its arguments).
- The workers' modules (run inside worker.mjs, not on the page) may import pyodide_js, Pyodide's
  own API, and nothing of the page's browser.
- No test module imports another (test_*.py): what two share lives in a helper module beside them
  (trees.py, training_reference.py, text_cli.py, ...) or in conftest.py.
"""

import ast
import dataclasses
import importlib
import re
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE, PY = ROOT / "site", ROOT / "py" / "mha"
BROWSER = {"pyscript", "js", "pyodide"}  # pyodide.ffi and friends: the page's JS objects
WORKER_ONLY = {"pyodide_js"}


def imported(path):
    """The top-level package of every import in a file."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


SITE_MODULES = sorted(p for p in SITE.rglob("*.py") if "sources" not in p.parts and "__pycache__" not in p.parts)
FLOORS = {
    "app": 4,          # the glue that touches the browser: main.py (the page's script), cells.py, training.py
    "training": 3,     # the trained model's section: its state and its worker, on figures/training.py
    "figures": 2,      # every figure's trees, from mha's numbers and the figure state
    "cells": 2,        # the code cells: their trees, the runner and its worker
    "page": 1,         # the foundation: the figure state and its gate, dom trees, the URL fragment
    "mha": 0,          # the math (py/mha)
    "stdlib_rest": 0,  # the workers' first import: the standard library only
}


def package(path):
    """site/figures/heads.py -> 'figures'; site/stdlib_rest.py -> 'stdlib_rest'."""
    return path.relative_to(SITE).parts[0].removesuffix(".py")


@pytest.mark.parametrize("path", SITE_MODULES, ids=lambda p: p.relative_to(SITE).as_posix())
def test_only_app_main_imports_the_browser(path):
    found = imported(path) & BROWSER
    if path == SITE / "app" / "main.py":
        assert found == {"pyscript", "pyodide"}
    else:
        assert not found, f"{path.relative_to(ROOT)} imports {sorted(found)}: take them from app/main.py"


@pytest.mark.parametrize("path", SITE_MODULES, ids=lambda p: p.relative_to(SITE).as_posix())
def test_site_imports_point_down(path):
    own = package(path)
    assert own in FLOORS, f"site/{own} has no floor: put it in FLOORS, above everything it imports"
    for name in imported(path) - {own}:
        if name in FLOORS:
            assert FLOORS[name] < FLOORS[own], (f"{path.relative_to(ROOT)} (floor {FLOORS[own]}) imports {name} "
                                                f"(floor {FLOORS[name]}): imports point down, never up or sideways")
        else:
            assert name in sys.stdlib_module_names or name in BROWSER | WORKER_ONLY, \
                f"{path.relative_to(ROOT)} imports {name}, which is neither the standard library nor on a floor"


@pytest.mark.parametrize("path", SITE_MODULES, ids=lambda p: p.relative_to(SITE).as_posix())
def test_only_worker_modules_use_pyodides_own_api(path):
    if imported(path) & WORKER_ONLY:
        assert path.name == "worker.py", f"{path.relative_to(ROOT)} imports pyodide_js outside a worker"


@pytest.mark.parametrize("path", sorted(PY.rglob("*.py")), ids=lambda p: p.relative_to(PY).as_posix())
def test_mha_imports_only_the_standard_library(path):
    outside = {name for name in imported(path) if name not in sys.stdlib_module_names and name != "mha"}
    assert not outside, f"{path.relative_to(ROOT)} imports {sorted(outside)}"


WORKER_STARTS = re.compile(r"\bnew\s+(Shared)?Worker\s*\(|\bWorker\.new\s*\(|serviceWorker\.register")


def test_every_worker_is_started_by_boot_js_under_the_pages_policy():
    """One way to start a worker (boot.js's mhaWorker, from a blob: URL, so the page's CSP holds in it): no other
    file of the site starts one. A worker from its own URL would run with no policy on a static host."""
    starters = sorted(p.relative_to(SITE).as_posix() for p in SITE.rglob("*")
                      if p.suffix in {".py", ".js", ".mjs", ".html"} and "sources" not in p.parts
                      and WORKER_STARTS.search(p.read_text()))
    assert starters == ["boot.js"], starters
    boot = (SITE / "boot.js").read_text()
    assert len(WORKER_STARTS.findall(boot)) == 1  # one place; that it gives a blob: worker, the browser tests check


# --- py/mha holds no module-level state -------------------------------------------------

MHA_MODULES = sorted(".".join(p.relative_to(PY.parent).with_suffix("").parts).removesuffix(".__init__")
                     for p in PY.rglob("*.py"))
IMPORT_SYSTEM = {"__builtins__", "__loader__", "__spec__", "__path__"}  # set by Python, not by mha
ATOMS = {int, float, complex, bool, str, bytes, type(None), range}


def frozen(value):
    """True if value cannot change: an atom, or a tuple, frozenset, read-only mapping or frozen
    dataclass of frozen values (NamedTuples and mha.Projection are tuples without a __dict__)."""
    if type(value) in ATOMS:
        return True
    if isinstance(value, tuple) and not hasattr(value, "__dict__"):
        return all(map(frozen, value))
    if type(value) is frozenset:
        return all(map(frozen, value))
    if type(value) is types.MappingProxyType:
        return all(frozen(k) and frozen(v) for k, v in value.items())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__dataclass_params__.frozen
                and all(frozen(getattr(value, f.name)) for f in dataclasses.fields(value)))
    return False


def definition(value):
    """A module, a class, or a function: code, not state. A built-in method bound to an object
    (random.random is Random().random) carries that object's state, so it does not count."""
    if isinstance(value, (types.ModuleType, type, types.FunctionType)):
        return True
    return isinstance(value, types.BuiltinFunctionType) and isinstance(value.__self__, (types.ModuleType, type(None)))


@pytest.mark.parametrize("name", MHA_MODULES)
def test_mha_modules_hold_no_state(name):
    module = importlib.import_module(name)
    state = {key: type(value).__name__ for key, value in vars(module).items()
             if key not in IMPORT_SYSTEM and not definition(value) and not frozen(value)}
    assert not state, f"{name} keeps changeable values at module level: {state}"


@dataclasses.dataclass
class _Open:
    x: int = 0


CHANGEABLE = {"dict": {}, "list": [], "set": set(), "bytearray": bytearray(), "tuple of a list": ([],),
              "namespace": types.SimpleNamespace(), "proxy of a list": types.MappingProxyType({"a": []}),
              "dataclass": _Open(), "bound random.random": __import__("random").random,
              "lru_cache": __import__("functools").lru_cache(lambda: 0)}


@pytest.mark.parametrize("value", CHANGEABLE.values(), ids=CHANGEABLE)
def test_the_state_rule_refuses_what_can_change(value):
    assert not (definition(value) or frozen(value))


def test_the_state_rule_accepts_constants_and_frozen_weights():
    import mha
    assert all(map(frozen, [(1, "a", None, 2.5, range(3)), frozenset({1}), types.MappingProxyType({"a": (1,)}),
                            mha.MODEL_SHAPES, mha.random_projections(4, 2)["w_q"], mha.LESSON_TOKENS]))


# --- tests share helpers, not each other ---------------------------------------------------------

TEST_MODULES = sorted((ROOT / "tests").rglob("test_*.py"))


@pytest.mark.parametrize("path", TEST_MODULES, ids=lambda p: p.relative_to(ROOT / "tests").as_posix())
def test_no_test_module_imports_another(path):
    """Importing a test module runs its collection-time code and couples two files' fixtures and data; a helper
    module (or conftest.py) says what is shared."""
    assert not {name for name in imported(path) if name.startswith("test_")}, path.name
