"""A tiny walker for figure trees ([tag, {attrs}, *children]), independent of page/dom.py.

Shared by the unit tests of the figures; a tree may also be a list of children (what a
FIGURES builder returns).
"""

import re


def nodes(tree):
    """Every element node of a tree (or of a list of children), depth first."""
    if isinstance(tree, list) and tree and isinstance(tree[0], str) and len(tree) > 1 and isinstance(tree[1], dict):
        yield tree
        for child in tree[2:]:
            yield from nodes(child)
    elif isinstance(tree, list):
        for child in tree:
            yield from nodes(child)


def find(tree, tag, **attrs):
    """Nodes with this tag whose attributes include attrs (underscores as dashes: aria_label=...)."""
    want = {k.replace("_", "-"): v for k, v in attrs.items()}
    return [n for n in nodes(tree) if n[0] == tag and all(n[1].get(k) == v for k, v in want.items())]


def text(tree):
    """The text content, as the browser's textContent would read it."""
    if isinstance(tree, str):
        return tree
    if tree and isinstance(tree[0], str) and len(tree) > 1 and isinstance(tree[1], dict):
        return "".join(text(child) for child in tree[2:])
    return "".join(text(child) for child in tree)


def class_list(node):
    """A node's classes."""
    return node[1].get("class", "").split()


def exact_values(tree):
    """The data-values of every table in a tree, in document order: the exact numbers (repr texts) of its cells."""
    return [value for table in find(tree, "table") if "data-values" in table[1]
            for value in table[1]["data-values"].split(" ")]


def map_cells(svg):
    """{(row, column): bucket class} of every cell a heat map draws, read back from the tree (figures/heatmap.py's
    format, not its code): the <g class=cells>'s w0 ground (its d a staircase, one "h1v1" a row), painted over by
    each w1-w9 path's runs (M column row h width ..., in cell units), then by each readable <rect data-q data-k>
    (its first class its bucket). A cell drawn twice by the runs or rects fails."""
    (group,) = [n for n in nodes(svg) if n[0] == "g" and n[1].get("class") == "cells"]
    (ground,) = [n for n in nodes(group) if n[0] == "path" and n[1]["class"] == "w0"]
    rows = ground[1]["d"].count("h1v1")
    cells = {(i, j): "w0" for i in range(rows) for j in range(i + 1)}
    drawn = set()
    for path in (n for n in nodes(group) if n[0] == "path" and n[1]["class"] != "w0"):
        for x, y, wide in re.findall(r"M(\d+) (\d+)h(\d+)v1h-\3z", path[1]["d"]):
            for k in range(int(wide)):
                cell = int(y), int(x) + k
                assert cell in cells and cell not in drawn, f"{cell} drawn twice or above the diagonal"
                drawn.add(cell)
                cells[cell] = path[1]["class"]
    for rect in (n for n in nodes(svg) if n[0] == "rect" and "data-q" in n[1]):
        cell = rect[1]["data-q"], rect[1]["data-k"]
        assert cell in cells and cell not in drawn, f"{cell} drawn twice or above the diagonal"
        cells[cell] = rect[1]["class"].split()[0]
    return cells
