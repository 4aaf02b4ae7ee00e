"""One builder for the page's attention maps: section 8's trained heads and section 9's heads on a text.

A map is one head's causal weights, rows[i][j] for query i on key j (j <= i), drawn at 1:1 in CSS pixels:
its <svg> has a width and a height and the CSS never scales it (styles/training.css, svg.train-map), so its
letters are the 11 px that rule sets on every screen, a phone's included. That is the phone rule, kept here
and in that one CSS rule: no caller picks a font size or a scale, only a cell size; a map whose cells are under
CELL (section 9's long texts) draws no letters at all rather than smaller ones.
"""

from page.dom import weight_class

CELL = 10    # px a cell that carries letters: an 11 px letter fits a 10 px row
MARGIN = 14  # px on the left and the top for the axis letters


BUCKETS = [f"w{k}" for k in range(10)] + ["w9"]  # dom.weight_class's names by int(10 * weight): 1.0 -> w9 too


def bucket_paths(rows, cell=CELL, skip=(), margin=MARGIN):
    """One <path class=wK> per weight bucket (dom.weight_class); a run of cells of one row in one bucket is one
    rectangle, so a map is at most ten elements however many cells it has. Nothing above the diagonal, nothing
    of the rows in skip (heat_map draws those as readable cells). Runs on every keystroke of section 9, so each
    cell's bucket is one list look-up (softmax weights lie in [0, 1])."""
    runs = {name: [] for name in BUCKETS}
    for i, weights in enumerate(rows):
        if i in skip:
            continue
        y, start = margin + i * cell, 0
        names = [BUCKETS[int(w * 10)] for w in weights[:i + 1]]
        names.append(None)
        for j in range(1, i + 2):
            if names[j] != names[start]:
                wide = (j - start) * cell
                runs[names[start]].append(f"M{margin + start * cell} {y}h{wide}v{cell}h-{wide}z")
                start = j
    return [["path", {"class": name, "d": "".join(parts)}] for name, parts in runs.items() if parts]


def edge(n, cell=CELL, margin=MARGIN):
    """<polyline class=edge>: the staircase around the n x n map's drawn cells (the causal mask's boundary), closed."""
    steps = [f"{margin + (i + 1) * cell},{margin + i * cell} {margin + (i + 1) * cell},{margin + (i + 1) * cell}"
             for i in range(n)]
    corner = f"{margin},{margin}"
    return ["polyline", {"class": "edge", "points": " ".join([corner, *steps, f"{margin},{margin + n * cell}", corner])}]


def heat_map(rows, row_labels, column_labels, label, *, cell=CELL, margin=MARGIN, readable=(), describe=None, tab=None,
             extra=()):
    """<svg> of one head's causal weights at 1:1, cell px a cell: bucket_paths, its edge, and the letters of
    row_labels down the left and column_labels along the top (one character each: the query's, the key's).

    readable: rows whose cells are readable, each drawn as its own <rect class="wK cell" data-q data-k> (not in a
    path) with describe(i, j) in its <title> (boot.js and app/text.py write it into a readout on hover and
    focus; arrow keys move between cells). tab: the (i, j) of the map's one tab stop (default: the first
    readable cell). An <svg role=img> named label; role=group, named label, when it has readable cells.
    extra: more classes for the <svg> ("text-map", "off"). cell under CELL: no letters (they would not fit), and margin
    may then be smaller than MARGIN."""
    n = len(rows)
    size = margin + n * cell
    wanted = [(i, j) for i in readable for j in range(i + 1)]
    tab = tab if tab is not None else (wanted[0] if wanted else None)
    cells = [["rect", {"class": f"{weight_class(rows[i][j])} cell", "x": margin + j * cell, "y": margin + i * cell, "width": cell,
                       "height": cell, "data-q": i, "data-k": j, "role": "img", "tabindex": 0 if (i, j) == tab else -1},
              ["title", {}, describe(i, j)]] for i, j in wanted]
    centres = " ".join(str(margin + j * cell + cell // 2) for j in range(n))
    baselines = " ".join(str(margin + i * cell + (cell + 8) // 2) for i in range(n))  # an 11 px letter's middle
    axis = [["text", {"x": centres, "y": margin - 3, "class": "axis", "aria-hidden": "true"}, "".join(column_labels)],
            ["text", {"x": " ".join([str(margin // 2)] * n), "y": baselines, "class": "axis", "aria-hidden": "true"},
             "".join(row_labels)]] if cell >= CELL else []
    return ["svg", {"viewBox": f"0 0 {size} {size}", "width": size, "height": size,
                    "class": " ".join(["train-map", *[name for name in extra if name]]),
                    "role": "group" if cells else "img", "aria-label": label},
            *bucket_paths(rows, cell, set(readable), margin), edge(n, cell, margin), *cells, *axis]
