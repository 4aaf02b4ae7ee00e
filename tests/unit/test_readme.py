"""The README says what the code does: its snippet's output, the pinned versions, the bench's targets."""

import ast
import contextlib
import io
import re
from pathlib import Path

import build

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
BENCH_PAGE = ROOT / "bench" / "page.py"
MAX_LINES = 200  # issue 21: a newcomer reads it in five minutes; what was tried lives in bench/NOTES.md


def _bench_targets():
    """bench/page.py's TARGETS, read from its source (importing it would import Playwright)."""
    tree = ast.parse(BENCH_PAGE.read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["TARGETS"]:
            return ast.literal_eval(node.value)
    raise AssertionError("bench/page.py has no TARGETS = {...}")


def test_readme_snippet_prints_its_documented_output():
    text = README.read_text()
    code, printed = re.search(r"```python\n(.*?)```\n\nprints\n\n```\n(.*?)```", text, re.S).groups()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {})
    assert out.getvalue() == printed


def test_readme_names_the_versions_build_py_pins():
    text = README.read_text()
    for name, version in [("Pyodide", build.PYODIDE_VERSION), ("@pyscript/core", build.PYSCRIPT_VERSION),
                          ("micropip", build.MICROPIP_VERSION)]:
        assert f"{name} {version}" in text, f"README should say '{name} {version}', as build.py pins it"


def test_readme_bench_table_states_every_target_bench_page_sets():
    """Each of bench/page.py's TARGETS has its row in the README's table, by key, with the same bound."""
    rows = {key: line for line in README.read_text().splitlines() if line.startswith("|")
            for key in re.findall(r"`([a-z_0-9]+)`", line)}
    targets = _bench_targets()
    assert targets, "bench/page.py sets no targets"
    for key, bound in targets.items():
        assert key in rows, f"the README's bench table has no row for `{key}` (target {bound})"
        assert re.search(rf"≤ {re.escape(str(bound))}\b", rows[key]), f"row for {key} should say ≤ {bound}: {rows[key]}"


def test_readme_stays_short():
    lines = len(README.read_text().splitlines())
    assert lines < MAX_LINES, f"README.md has {lines} lines; move what was tried to bench/NOTES.md"


def test_the_bench_notes_stay_short_and_keep_no_round_by_round_diary():
    notes = (Path(__file__).resolve().parents[2] / "bench" / "NOTES.md").read_text()
    assert len(notes.splitlines()) <= 100
    assert not re.search(r"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth) round\b", notes, re.I)
