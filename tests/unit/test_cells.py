"""Every code cell runs in CPython through the page's runner and prints the lesson's numbers.

The expected numbers are hand-worked (the worked example, derived in tests/conftest.py), written
as literals.
"""

import ast
import pathlib
import re

import pytest

import build
from cells.run import run_cell
from conftest import finished
from trees import find, text

CELLS = pathlib.Path(__file__).resolve().parents[2] / "site" / "cells" / "sources"

# --- test data ---------------------------------------------------------------

# The worked example (derived by hand in tests/conftest.py).
HEAD_0 = ["[0.5177, 0.4823]", "[0.5141, 0.4859]"]
HEAD_1 = ["[0.6698, 0.3302]", "[0.3302, 0.6698]"]
ONE_HEAD = ["[0.6341, 0.3659]", "[0.3870, 0.6130]"]


def run(name):
    shown = []
    out, error = finished(run_cell((CELLS / f"{name}.py").read_text(), {"show": shown.append}))
    assert error is None, error
    return out.splitlines(), shown


def rows_after(lines, title, count=2):
    """The `count` printed rows under the line `title`."""
    start = lines.index(title) + 1
    return [line.strip() for line in lines[start:start + count]]


# --- tests ------------------------------------------------------------------------

@pytest.mark.parametrize("path", sorted(CELLS.glob("*.py")), ids=lambda p: p.stem)
def test_every_cell_runs_without_error(path):
    out, error = finished(run_cell(path.read_text(), {"show": lambda tokens: None}))
    assert error is None, error
    assert out


def test_two_heads_prints_section_3_with_nothing_but_math():
    lines, _ = run("two_heads")
    assert rows_after(lines, "head 0 (slots 0-1):") == HEAD_0
    assert rows_after(lines, "head 1 (slots 2-3):") == HEAD_1
    tree = ast.parse((CELLS / "two_heads.py").read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                for alias in node.names}
    assert imported == {"math"}


def test_two_heads_edited_as_in_section_4_moves_head_1_only():
    source = (CELLS / "two_heads.py").read_text().replace("[0.9, 0.1, 1.0, 0.0],", "[0.9, 0.1, 0.0, 1.0],", 1)
    out, error = finished(run_cell(source))
    lines = out.splitlines()
    assert rows_after(lines, "head 0 (slots 0-1):") == HEAD_0
    assert rows_after(lines, "head 1 (slots 2-3):") == ["[0.5000, 0.5000]", "[0.5000, 0.5000]"]


def test_one_head_prints_the_fat_head_and_shows_the_tokens():
    lines, shown = run("one_head")
    assert rows_after(lines, "head 0:") == HEAD_0
    assert rows_after(lines, "head 1:") == HEAD_1
    assert rows_after(lines, "one head over all 4 slots:") == ONE_HEAD
    assert shown == [[[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 1.0, 0.0]]]


def test_one_head_commented_causal_line_uncommented_keeps_the_past_only():
    """Token 0 may see only itself, so its row is [1, 0]; token 1 sees tokens 0-1, all there are, so its row is
    section 3's. The one wide head is not masked: its rows stay."""
    code = (CELLS / "one_head.py").read_text()
    line = "# result = mha.multi_head_attention(tokens, 2, causal=True)"
    assert code.count(line) == 1
    out, error = finished(run_cell(code.replace(line, line[2:]), {"show": lambda tokens: None}))
    assert error is None, error
    lines = out.splitlines()
    assert rows_after(lines, "head 0:") == ["[1.0000, 0.0000]", HEAD_0[1]]
    assert rows_after(lines, "head 1:") == ["[1.0000, 0.0000]", HEAD_1[1]]
    assert rows_after(lines, "one head over all 4 slots:") == ONE_HEAD


# --- the page places every cell and states the lesson's numbers -------------------




def test_the_page_places_every_cell_once_and_no_missing_one():
    placed = re.findall(r'data-cell="([a-z_]+)"', build.page_source())
    assert sorted(placed) == sorted(p.stem for p in CELLS.glob("*.py"))


def test_where_cells_run_is_said_once_above_the_first_cell_and_the_keys_under_each():
    from cells import view

    placed = re.findall(r'data-cell="([a-z_]+)"', build.page_source())
    assert placed == list(view.CELLS)  # CELLS[0] is the first cell a reader meets
    trees = view.prerender()
    said = [name for name in view.CELLS if find(trees[view.element_id(name)], "small", **{"class": "cell-note"})]
    assert said == [view.CELLS[0]]
    assert view.RUNS_HERE in text(trees[view.element_id(view.CELLS[0])])
    for name in view.CELLS:  # the keys note, once Python is ready (before it, a sentence saying Run waits)
        assert view.keys(name) in text(view.bar(name, ready=True))


def test_each_cell_names_its_own_time_limit_and_the_training_cell_gets_two_minutes():
    """The training cell's invitation (300 steps) needs more than the other cells' 5 s; each says its own."""
    from cells import view

    assert [view.time_limit(name) for name in view.CELLS] == [5.0, 5.0, 120.0]
    assert view.keys("two_heads").endswith("Stop, or 5 s, ends a run.")
    assert view.keys("training").endswith("Stop, or 120 s, ends a run.")
    assert view.running("training") == "Running\u2026 (Stop, or 120 s, ends it)"
    assert "after the 120 s limit" in view.stopped("training", 120.2, "limit")[0]
    assert "after the 5 s limit" in view.stopped("one_head", 5.1, "limit")[0]


def test_the_refused_note_names_each_url_up_to_three_then_counts_the_rest():
    from cells import view

    assert view.refused([]) == []
    (one,) = view.refused(["https://a.example/x"])
    assert one.startswith("Refused by the page's security policy, nothing sent: https://a.example/x. ")
    (five,) = view.refused([f"https://{c}.example/" for c in "abcde"])
    assert "https://a.example/, https://b.example/, https://c.example/ and 2 more." in five
