"""figures/heatmap.py, the one builder of the page's attention maps (sections 8 and 9), on hand-built patterns.

Each expected tree is worked out in the test's docstring: the cells of a run, the edge, the readable cells.
"""

import re

from figures.heatmap import CELL, MARGIN, heat_map
from page import dom
from trees import find, nodes, text

# Row 0: [1.0]; row 1: [0.25, 0.75]; row 2: [0.31, 0.33, 0.36]: buckets by tenths w9; w2, w7; w3, w3, w3.
WEIGHTS = [[1.0, 0.0, 0.0], [0.25, 0.75, 0.0], [0.31, 0.33, 0.36]]


def test_a_run_of_cells_in_one_bucket_is_one_rectangle_and_nothing_above_the_diagonal_is_drawn():
    """At 10 px a cell and 14 px of margin: row 2's three w3 cells are one 30 px rectangle at (14, 34); row 1's
    cells are two of 10 px at x = 14 and 24, y = 24; row 0's one at (14, 14). The map is 14 + 3 x 10 = 44 px."""
    svg = heat_map(WEIGHTS, "ABC", "ABC", "a hand-built head")
    dom.check(svg)
    paths = {p[1]["class"]: p[1]["d"] for p in find(svg, "path")}
    assert paths == {"w9": "M14 14h10v10h-10z", "w2": "M14 24h10v10h-10z", "w7": "M24 24h10v10h-10z",
                     "w3": "M14 34h30v10h-30z"}
    assert (svg[1]["width"], svg[1]["height"], svg[1]["viewBox"]) == (44, 44, "0 0 44 44")
    assert (svg[1]["role"], svg[1]["aria-label"], svg[1]["class"]) == ("img", "a hand-built head", "train-map")
    assert not find(svg, "rect")  # nothing readable asked for


def test_the_edge_is_the_staircase_around_the_drawn_cells():
    """From the top-left corner (14, 14): right along row 0 to x = 24, down to its bottom, right to 34, ..., down to
    the bottom right (44, 44), back left to (14, 44) and up to where it started."""
    (edge,) = find(heat_map(WEIGHTS, "ABC", "ABC", "x"), "polyline")
    assert edge[1]["points"] == "14,14 24,14 24,24 34,24 34,34 44,34 44,44 14,44 14,14"


def test_readable_rows_get_one_titled_focusable_cell_each_and_one_tab_stop():
    """readable=(1,): row 1's two cells, at (14, 24) and (24, 24), each its own <rect> in its bucket (w2, w7) titled
    by describe(i, j), and not in a path; the tab stop is the cell asked for, (1, 1); a map with readable cells is a
    group, not one image."""
    svg = heat_map(WEIGHTS, "ABC", "abc", "head", readable=(1,), tab=(1, 1), extra=("text-map", ""),
                   describe=lambda i, j: f"query {i} on key {j}: {WEIGHTS[i][j]:.4f}")
    cells = find(svg, "rect")
    assert [(c[1]["x"], c[1]["y"], c[1]["data-q"], c[1]["data-k"], c[1]["tabindex"]) for c in cells] == [
        (14, 24, 1, 0, -1), (24, 24, 1, 1, 0)]
    assert [text(c) for c in cells] == ["query 1 on key 0: 0.2500", "query 1 on key 1: 0.7500"]
    assert [c[1]["class"] for c in cells] == ["w2 cell", "w7 cell"] and all(c[1]["role"] == "img" for c in cells)
    assert {p[1]["class"]: p[1]["d"] for p in find(svg, "path")} == {"w9": "M14 14h10v10h-10z",
                                                                     "w3": "M14 34h30v10h-30z"}
    assert (svg[1]["role"], svg[1]["class"]) == ("group", "train-map text-map")
    top, left = find(svg, "text")
    assert (text(top), text(left)) == ("abc", "ABC")  # columns along the top, rows down the left
    assert sum(1 for n in nodes(svg) if n[0] == "rect" and n[1]["tabindex"] == 0) == 1


def test_every_readable_row_without_a_tab_asked_for_starts_at_the_first_cell():
    cells = find(heat_map(WEIGHTS, "ABC", "ABC", "x", readable=range(3), describe=lambda i, j: ""), "rect")
    assert len(cells) == 6 and [c[1]["tabindex"] for c in cells] == [0, -1, -1, -1, -1, -1]


def test_a_bigger_cell_moves_the_letters_to_its_middle():
    """cell=20: column centres 14 + 20 j + 10 = 24, 44, 64; baselines 14 + 20 i + (20 + 8) // 2 = 28, 48, 68 (an 11 px
    letter's middle sits about 4 px above its baseline)."""
    top, left = find(heat_map(WEIGHTS, "ABC", "ABC", "x", cell=20), "text")
    assert top[1]["x"] == "24 44 64" and top[1]["y"] == MARGIN - 3
    assert left[1]["y"] == "28 48 68" and left[1]["x"] == "7 7 7"
    assert CELL == 10 and re.fullmatch(r"M14 54h60v20h-60z", find(heat_map(WEIGHTS, "ABC", "ABC", "x", cell=20),
                                                                   "path", **{"class": "w3"})[0][1]["d"])
