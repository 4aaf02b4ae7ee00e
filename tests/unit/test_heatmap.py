"""figures/heatmap.py, the one builder of the page's attention maps (sections 8 and 9), on hand-built patterns.

Each expected tree is worked out in the test's docstring: the cells of a run, the edge, the readable cells.
"""

from figures.heatmap import BLOCK, CELL, MARGIN, Runs, heat_map, row_runs
from page import dom
from trees import find, nodes, text

# Row 0: [1.0]; row 1: [0.25, 0.75]; row 2: [0.31, 0.33, 0.36]: buckets by tenths w9; w2, w7; w3, w3, w3.
WEIGHTS = [[1.0, 0.0, 0.0], [0.25, 0.75, 0.0], [0.31, 0.33, 0.36]]

def test_a_run_of_cells_in_one_bucket_is_one_rectangle_and_nothing_above_the_diagonal_is_drawn():
    """In cell units, scaled to 10 px and moved 14 px in: row 2's three w3 cells are one 3-cell rectangle at (0, 2);
    row 1's cells two of one cell at x = 0 and 1, y = 1; row 0's one at (0, 0). Under them the ground, a w0 staircase
    of all six cells. The map is 14 + 3 x 10 = 44 px."""
    svg = heat_map(WEIGHTS, "ABC", "ABC", "a hand-built head", cell=10)
    dom.check(svg)
    (group,) = find(svg, "g")
    assert group[1]["transform"] == "translate(14 14) scale(10)"
    paths = {p[1]["class"]: p[1]["d"] for p in find(group, "path")}
    assert paths == {"w0": "M0 0h1v1h1v1h1v1H0z", "w9": "M0 0h1v1h-1z", "w2": "M0 1h1v1h-1z", "w7": "M1 1h1v1h-1z",
                     "w3": "M0 2h3v1h-3z"}
    assert (svg[1]["width"], svg[1]["height"], svg[1]["viewBox"]) == (44, 44, "0 0 44 44")
    assert (svg[1]["role"], svg[1]["aria-label"], svg[1]["class"]) == ("img", "a hand-built head", "train-map")
    assert not find(svg, "rect")  # nothing readable asked for

def test_a_row_of_weights_under_a_tenth_is_ground_only():
    """Row 3 of [0.05, 0.02, 0.9, 0.03]: only its 0.9 (w9, key 2) is drawn; the rest is the w0 ground's."""
    assert row_runs([0.05, 0.02, 0.9, 0.03], 3) == [("w9", "M2 3h1v1h-1z")]
    assert row_runs([0.5, 0.5, 0.0], 1) == [("w5", "M0 1h2v1h-2z")]  # keys past the row (the mask's) are not read

def test_a_row_added_changes_only_its_own_block_s_paths():
    """A map of BLOCK + 2 rows, every cell of row i in bucket w(i mod 10) (weights i mod 10 / 10 + 0.05, not a
    softmax row: only the drawing is tested): the first BLOCK rows' paths, then the last two rows' own. One more row
    leaves every path of the full block as it was and adds its run to its bucket's path in the last block, where row
    BLOCK + 2 (bucket w8) had none. Kept runs, grown a row at a time, draw the same paths as runs made at once."""
    def rows(n):
        return [[i % 10 / 10 + 0.05] * (i + 1) for i in range(n)]

    def paths(n, runs=None):
        (group,) = find(heat_map(rows(n), "x" * n, "x" * n, "m", cell=2, margin=2, runs=runs), "g")
        return [(p[1]["class"], p[1]["d"]) for p in find(group, "path")]

    n = BLOCK + 2
    before, after = paths(n), paths(n + 1)
    full = [(f"w{b}", "".join(f"M0 {i}h{i + 1}v1h-{i + 1}z" for i in range(BLOCK) if i % 10 == b)) for b in range(1, 10)]
    assert before[1:] == full + [("w6", f"M0 {BLOCK}h{BLOCK + 1}v1h-{BLOCK + 1}z"),
                                 ("w7", f"M0 {BLOCK + 1}h{BLOCK + 2}v1h-{BLOCK + 2}z")]
    assert after[1:] == before[1:] + [("w8", f"M0 {BLOCK + 2}h{BLOCK + 3}v1h-{BLOCK + 3}z")]
    kept = Runs()
    for k in range(1, n + 2):
        kept = kept.grown(rows(k))
    assert len(kept.blocks) == 1 and paths(n + 1, kept) == after

def test_the_edge_is_the_staircase_around_the_drawn_cells():
    """From the top-left corner (14, 14): right along row 0 to x = 24, down to its bottom, right to 34, ..., down to
    the bottom right (44, 44), back left to x = 14 and up to where it started, in px."""
    (edge,) = find(heat_map(WEIGHTS, "ABC", "ABC", "x", cell=10), "path", **{"class": "edge"})
    assert edge[1]["d"] == "M14 14h10v10h10v10h10v10H14z"

def test_readable_rows_get_one_titled_focusable_cell_each_and_one_tab_stop():
    """readable=(1,), at the default 12 px a cell: row 1's two cells, at (14, 26) and (26, 26), each its own <rect> in
    its bucket (w2, w7) titled by describe(i, j), and not in a path; the tab stop is the cell asked for, (1, 1); a map
    with readable cells is a group, not one image."""
    svg = heat_map(WEIGHTS, "ABC", "abc", "head", readable=(1,), tab=(1, 1), extra=("text-map", ""),
                   describe=lambda i, j: f"query {i} on key {j}: {WEIGHTS[i][j]:.4f}")
    cells = find(svg, "rect")
    assert [(c[1]["x"], c[1]["y"], c[1]["data-q"], c[1]["data-k"], c[1]["tabindex"]) for c in cells] == [
        (14, 26, 1, 0, -1), (26, 26, 1, 1, 0)]
    assert [text(c) for c in cells] == ["query 1 on key 0: 0.2500", "query 1 on key 1: 0.7500"]
    assert [c[1]["class"] for c in cells] == ["w2 cell", "w7 cell"] and all(c[1]["role"] == "img" for c in cells)
    assert {p[1]["class"]: p[1]["d"] for p in find(find(svg, "g")[0], "path")} == {
        "w0": "M0 0h1v1h1v1h1v1H0z", "w9": "M0 0h1v1h-1z", "w3": "M0 2h3v1h-3z"}  # row 1's are the rects' only
    assert (svg[1]["role"], svg[1]["class"]) == ("group", "train-map text-map")
    top, left = find(svg, "text")
    assert (text(top), text(left)) == ("abc", "ABC")  # columns along the top, rows down the left
    assert sum(1 for n in nodes(svg) if n[0] == "rect" and n[1]["tabindex"] == 0) == 1

def test_every_readable_row_without_a_tab_asked_for_starts_at_the_first_cell():
    cells = find(heat_map(WEIGHTS, "ABC", "ABC", "x", readable=range(3), describe=lambda i, j: ""), "rect")
    assert len(cells) == 6 and [c[1]["tabindex"] for c in cells] == [0, -1, -1, -1, -1, -1]

def test_a_cursor_outlines_its_row_and_makes_one_cell_readable_and_the_tab_stop():
    """cursor=(2, 1): row 2 outlined (a 30 x 10 px rect at (14, 34)), its cell (2, 1) the one readable <rect>, at
    (24, 34), in its bucket (w3) and focusable; every row, row 2 too, drawn in the paths."""
    svg = heat_map(WEIGHTS, "ABC", "ABC", "head", cell=10, cursor=(2, 1), describe=lambda i, j: f"{i} on {j}")
    outline, cell = find(svg, "rect")
    assert (outline[1]["class"], outline[1]["x"], outline[1]["y"], outline[1]["width"], outline[1]["height"]) == (
        "row-outline", 14, 34, 30, 10)
    assert (cell[1]["class"], cell[1]["x"], cell[1]["y"], cell[1]["data-q"], cell[1]["data-k"], cell[1]["tabindex"],
            text(cell)) == ("w3 cell", 24, 34, 2, 1, 0, "2 on 1")
    assert find(find(svg, "g")[0], "path", **{"class": "w3"})[0][1]["d"] == "M0 2h3v1h-3z"
    assert svg[1]["role"] == "group"

def test_a_bigger_cell_moves_the_letters_to_its_middle():
    """cell=20: column centres 14 + 20 j + 10 = 24, 44, 64; baselines 14 + 20 i + (20 + 8) // 2 = 28, 48, 68 (an 11 px
    letter's middle sits about 4 px above its baseline)."""
    top, left = find(heat_map(WEIGHTS, "ABC", "ABC", "x", cell=20), "text")
    assert top[1]["x"] == "24 44 64" and top[1]["y"] == MARGIN - 3
    assert left[1]["y"] == "28 48 68" and left[1]["x"] == "7 7 7"
    assert CELL == 12 and find(heat_map(WEIGHTS, "ABC", "ABC", "x", cell=20), "g")[0][1]["transform"] == \
        "translate(14 14) scale(20)"
