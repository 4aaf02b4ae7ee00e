"""The house's rules that a reader of the tree relies on, checked on the tree itself.

- page/main.py is the only site module that imports the browser (pyscript, js, pyodide.ffi);
  the glue modules receive what they need from it.
- py/mha imports nothing beyond the standard library (and itself): it runs unchanged in CPython
  and in Pyodide, and never touches the page.
- The workers' modules (run inside worker.mjs, not on the page) may import pyodide_js, Pyodide's
  own API, and nothing of the page's browser.
"""

import ast
import re
import sys
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


@pytest.mark.parametrize("path", SITE_MODULES, ids=lambda p: p.relative_to(SITE).as_posix())
def test_only_page_main_imports_the_browser(path):
    found = imported(path) & BROWSER
    if path == SITE / "page" / "main.py":
        assert found == {"pyscript", "pyodide"}
    else:
        assert not found, f"{path.relative_to(ROOT)} imports {sorted(found)}: take them from page/main.py"


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
    assert len(WORKER_STARTS.findall(boot)) == 1 and "new Worker(workerBlobs.get(module)" in boot
