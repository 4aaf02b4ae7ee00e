"""Every code cell runs in CPython through the page's runner and prints the lesson's numbers.

The expected numbers are hand-worked (the worked example, derived in tests/conftest.py) and
hand-worked byte counts, written as literals; the cross-attention rows are
checked against numpy.
"""

import ast
import math
import pathlib
import re

import pytest

import build
from cells.run import run_cell
from conftest import finished

CELLS = pathlib.Path(__file__).resolve().parents[2] / "site" / "cells" / "sources"

# --- test data ---------------------------------------------------------------

# The worked example (derived by hand in tests/conftest.py).
HEAD_0 = ["[0.5177, 0.4823]", "[0.5141, 0.4859]"]
HEAD_1 = ["[0.6698, 0.3302]", "[0.3302, 0.6698]"]
ONE_HEAD = ["[0.6341, 0.3659]", "[0.3870, 0.6130]"]

# 2 x layers x kv heads x 8192 tokens x head width x 2 bytes, worked by hand.
KV_BILLS = {
    "Llama-2-7B": "4.00 GiB",     # 2 x 32 x 32 x 8192 x 128 x 2 = 2**32
    "Llama-2-70B": "2.50 GiB",    # 2 x 80 x  8 x 8192 x 128 x 2 = 2.5 x 2**30
    "Llama-3-8B": "1.00 GiB",     # 2 x 32 x  8 x 8192 x 128 x 2 = 2**30
    "Llama-3.1-8B": "1.00 GiB",   # the same shape
    "Llama-3-70B": "2.50 GiB",    # 2 x 80 x  8 x 8192 x 128 x 2 = 2.5 x 2**30
    "Mistral-7B-v0.1": "512.0 MiB",  # sliding window: 2 x 32 x 8 x 4096 x 128 x 2 = 2**29
    "Falcon-7B": "64.0 MiB",      # 2 x 32 x  1 x 8192 x  64 x 2 = 2**26
    "Qwen2.5-7B": "448.0 MiB",    # 2 x 28 x  4 x 8192 x 128 x 2 = 448 x 2**20
}
# The same with one kv head per query head (no sharing).
KV_FULL = {
    "Llama-2-70B": "20.00 GiB",   # 64 query heads instead of 8: 8 x 2.5 GiB
    "Falcon-7B": "4.44 GiB",      # 71 query heads x 64 MiB = 4544 MiB = 4.4375 GiB
    "Qwen2.5-7B": "3.06 GiB",     # 28 query heads x 112 MiB = 3136 MiB = 3.0625 GiB
}


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


def test_cross_attention_is_self_attention_with_another_context():
    np = pytest.importorskip("numpy")
    lines, _ = run("cross_attention")
    assert rows_after(lines, "head 0, self (2 x 2):") == HEAD_0
    assert rows_after(lines, "head 1, self (2 x 2):") == HEAD_1
    decoder = np.array([[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 1.0, 0.0]])
    encoder = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [0.5, 0.5, 0.5, 0.5]])
    for h in range(2):
        q, k = decoder[:, 2 * h:2 * h + 2], encoder[:, 2 * h:2 * h + 2]
        scores = np.exp(q @ k.T / math.sqrt(2))
        weights = scores / scores.sum(axis=1, keepdims=True)
        expected = ["[" + ", ".join(f"{w:.4f}" for w in row) + "]" for row in weights]
        assert rows_after(lines, f"head {h}, cross (2 x 3):") == expected
    assert lines[-1].endswith("True")


def test_causal_mask_keeps_the_past_only():
    """Token 0 sees only itself (1, 0, 0); token 1 sees tokens 0-1, so its row is section 3's."""
    lines, _ = run("causal_mask")
    assert rows_after(lines, "mask (1 = may attend):", 3) == ["1 0 0", "1 1 0", "1 1 1"]
    for title, section_3_row in [("head 0:", HEAD_0[1]), ("head 1:", HEAD_1[1])]:
        first, second, _ = rows_after(lines, title, 3)
        assert first == "[1.0000, 0.0000, 0.0000]"
        assert second == section_3_row[:-1] + ", 0.0000]"


def test_kv_cache_prints_the_hand_worked_bills():
    lines, _ = run("kv_cache")
    for name, size in KV_BILLS.items():
        (line,) = [line for line in lines if line.startswith(name + " ")]
        assert re.match(rf"{re.escape(name)}\s+{re.escape(size)}  \(", line), line
    for name, size in KV_FULL.items():
        line = lines[lines.index(next(line for line in lines if line.startswith(name + " "))) + 1]
        assert re.match(rf"\s+{re.escape(size)}  without sharing", line), line


# --- the page places every cell and states the lesson's numbers -------------------




def test_the_page_places_every_cell_once_and_no_missing_one():
    placed = re.findall(r'data-cell="([a-z_]+)"', build.page_source())
    assert sorted(placed) == sorted(p.stem for p in CELLS.glob("*.py"))


def test_the_refused_note_names_each_url_up_to_three_then_counts_the_rest():
    from cells import view

    assert view.refused([]) == []
    (one,) = view.refused(["https://a.example/x"])
    assert one.startswith("Refused by the page's security policy, nothing sent: https://a.example/x. ")
    (five,) = view.refused([f"https://{c}.example/" for c in "abcde"])
    assert "https://a.example/, https://b.example/, https://c.example/ and 2 more." in five
