"""One builder for the page's attention maps: section 8's trained heads and section 9's heads on a text.

A map is one head's causal weights, rows[i][j] for query i on key j (j <= i), drawn at 1:1 in CSS pixels:
its <svg> has a width and a height and the CSS never scales it (styles/training.css, svg.train-map), so its
letters are the 11 px that rule sets on every screen, a phone's included. That is the phone rule, kept here
and in that one CSS rule: no caller picks a font size or a scale, only a cell size; a map whose cells are under
CELL (section 9's long texts) draws no letters at all rather than smaller ones.
"""

from dataclasses import dataclass

from page.dom import weight_class

CELL = 12    # px a cell that carries letters: 11 px letters down the left, a px apart
MARGIN = 14  # px on the left and the top for the axis letters


BUCKETS = [f"w{k}" for k in range(10)] + ["w9"]  # dom.weight_class's names by int(10 * weight): 1.0 -> w9 too


def row_runs(weights, i):
    """Row i's runs of cells in one bucket, w0 left out (a map's ground is w0), each a rectangle in cell units:
    [(bucket, "Mj ihWv1h-Wz"), ...], keys 0..i only (nothing above the diagonal). Each cell's bucket is one list
    look-up (softmax weights lie in [0, 1]). A row never changes once its query is read (the mask is causal), so
    a caller that keeps a map's runs computes only a new row's (figures/text.py's map_runs, on every character
    typed in section 9)."""
    names = [BUCKETS[int(w * 10)] for w in weights[:i + 1]]
    names.append(None)
    runs, start = [], 0
    for j in range(1, i + 2):
        if names[j] != names[start]:
            if names[start] != "w0":
                runs.append((names[start], f"M{start} {i}h{j - start}v1h-{j - start}z"))
            start = j
    return runs


def staircase(n, cell=1, margin=0):
    """A path's d around the cells under an n x n map's diagonal, from its top left corner (the causal mask's edge)."""
    return f"M{margin} {margin}{f'h{cell}v{cell}' * n}H{margin}z"


BLOCK = 16  # rows whose runs share a path: a row added (a character typed in section 9) redraws its block's paths


def block_paths(runs, start, skip=()):
    """One <path class=wK> per bucket of the rows' runs (row_runs: rows start, start + 1, ... of a map), w0 left out
    (the ground's), and nothing of the rows in skip."""
    parts = {name: [] for name in BUCKETS[1:10]}
    for i, row in enumerate(runs, start):
        if i not in skip:
            for name, d in row:
                parts[name].append(d)
    return [["path", {"class": name, "d": "".join(d)}] for name, d in parts.items() if d]


@dataclass(frozen=True)
class Runs:
    """A map's rows as row_runs, and the <path>s of each full BLOCK of them (block_paths): what a caller keeps that
    adds a row at a time (section 9, a character typed), so a row added computes its own runs and, when it fills its
    block, that block's paths."""

    rows: tuple = ()
    blocks: tuple = ()

    def grown(self, weights):
        """These runs with the rows of weights (the map's rows, these first) after them."""
        rows = self.rows + tuple(row_runs(weights[i], i) for i in range(len(self.rows), len(weights)))
        full = range(len(self.blocks) * BLOCK, len(rows) - BLOCK + 1, BLOCK)
        return Runs(rows, self.blocks + tuple(block_paths(rows[start:start + BLOCK], start) for start in full))


def bucket_paths(rows, cell=CELL, skip=(), margin=MARGIN, runs=None):
    """<g> of the map's cells, drawn in cell units and scaled to cell px: the ground, one w0 <path> of every cell
    under the diagonal, then for each BLOCK rows one <path class=wK> per other bucket (dom.weight_class), a run of
    cells of one row in one bucket one rectangle, so a map is at most ten paths a block however many cells it has,
    and a row added changes its own block's paths only. Nothing above the diagonal; nothing of the rows in skip but
    the ground (heat_map draws those as readable cells). runs: the map's Runs, if the caller kept them."""
    runs = runs if runs is not None else Runs().grown(rows)
    kept = () if skip else runs.blocks
    paths = [path for block in kept for path in block]
    for start in range(len(kept) * BLOCK, len(runs.rows), BLOCK):
        paths += block_paths(runs.rows[start:start + BLOCK], start, skip)
    return ["g", {"class": "cells", "transform": f"translate({margin} {margin}) scale({cell})"},
            ["path", {"class": "w0", "d": staircase(len(runs.rows))}], *paths]


def edge(n, cell=CELL, margin=MARGIN):
    """<path class=edge>: the staircase around the n x n map's drawn cells, in px (its line 0.5 px at any cell)."""
    return ["path", {"class": "edge", "d": staircase(n, cell, margin)}]


def readable_cell(rows, i, j, cell, margin, describe, tab):
    """<rect class="wK cell" data-q=i data-k=j role=img> over cell (i, j), describe(i, j) in its <title>; tab: the
    map's one tab stop (tabindex 0, else -1)."""
    return ["rect", {"class": f"{weight_class(rows[i][j])} cell", "x": margin + j * cell, "y": margin + i * cell,
                     "width": cell, "height": cell, "data-q": i, "data-k": j, "role": "img", "tabindex": 0 if tab else -1},
            ["title", {}, describe(i, j)]]


def axis_letters(row_labels, column_labels, cell, margin):
    """The two <text>s of a map's axes: column_labels along the top, row_labels down the left, one a cell (each label
    a character, or a <tspan> of one: the page marks a space's and a newline's glyph so)."""
    n = len(row_labels)
    centres = " ".join(str(margin + j * cell + cell // 2) for j in range(n))
    baselines = " ".join(str(margin + i * cell + (cell + 8) // 2) for i in range(n))  # an 11 px letter's middle
    return [["text", {"x": centres, "y": margin - 3, "class": "axis", "aria-hidden": "true"}, *column_labels],
            ["text", {"x": " ".join([str(margin // 2)] * n), "y": baselines, "class": "axis", "aria-hidden": "true"},
             *row_labels]]


def heat_map(rows, row_labels, column_labels, label, *, cell=CELL, margin=MARGIN, readable=(), describe=None, tab=None,
             cursor=None, runs=None, extra=()):
    """<svg> of one head's causal weights at 1:1, cell px a cell: bucket_paths, its edge, and the letters of
    row_labels down the left and column_labels along the top (one character each: the query's, the key's).

    readable: rows whose cells are readable, each drawn as its own <rect class="wK cell" data-q data-k> (not in a
    path) with describe(i, j) in its <title> (boot.js writes it into a readout on hover and focus; arrow keys move
    between cells). tab: the (i, j) of the map's one tab stop (default: the first readable cell).
    cursor: (i, j) instead of readable rows, for a map too big for a <rect> a cell (section 9's, up to 128 x 128):
    row i outlined (<rect class=row-outline>) and one readable cell, (i, j), the map's tab stop (app/text.py moves
    it with the arrow keys and names the cell under the pointer). runs: the map's Runs, if the caller kept them.
    An <svg role=img> named label; role=group, named label, when it has a readable cell. extra: more classes for
    the <svg> ("text-map", "off"). cell under CELL: no letters (they would not fit); margin may be under MARGIN."""
    n = len(rows)
    size = margin + n * cell
    if cursor is not None:
        i, j = cursor
        cells = [["rect", {"class": "row-outline", "x": margin, "y": margin + i * cell, "width": (i + 1) * cell,
                           "height": cell}],
                 readable_cell(rows, i, j, cell, margin, describe, True)]
    else:
        wanted = [(i, j) for i in readable for j in range(i + 1)]
        tab = tab if tab is not None else (wanted[0] if wanted else None)
        cells = [readable_cell(rows, i, j, cell, margin, describe, (i, j) == tab) for i, j in wanted]
    axis = axis_letters(row_labels, column_labels, cell, margin) if cell >= CELL else []
    return ["svg", {"viewBox": f"0 0 {size} {size}", "width": size, "height": size,
                    "class": " ".join(["train-map", *[name for name in extra if name]]),
                    "role": "group" if cells else "img", "aria-label": label},
            bucket_paths(rows, cell, set(readable), margin, runs), edge(n, cell, margin), *cells, *axis]
