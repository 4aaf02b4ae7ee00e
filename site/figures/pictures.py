"""Pictures next to the numbers (section 3): attention lines per head, the 1/sqrt(d) chart.

- attention_picture: beside each head's weight table (figures/heads.py head_tables), one line
  from every query token (left) to every key (right), its stroke-opacity the weight. The lines
  come in the table's cell order, so boot.js's mhaPatch moves each line's opacity with its cell
  (no extra data per keystroke). aria-hidden: the table is the accessible source.
- fig-scale (static, drawn at build time): one random query against 8 random keys at widths
  4, 64 and 1024, the largest softmax weight with and without dividing by sqrt(d).

No math here: mha computes every number (mha.attention_weights, mha.projections.random_vectors).
"""

import mha
from figures.registry import Figure
from mha.projections import random_vectors
from page.dom import fixed

# --- the attention lines, one picture per head ----------------------------------------

PICTURE_TOKENS = 8  # lines for up to this many queries and keys; past it they tangle, and the table shows it all
ROW = 24            # picture units between two tokens
TOP = 16            # room for the 'query' and 'key' headings
LEFT, RIGHT, WIDTH = 18, 62, 80  # where lines start and end, and the picture's width


def pictured(weights):
    """True if a picture is drawn for these weights (n x m, both at most PICTURE_TOKENS)."""
    return len(weights) <= PICTURE_TOKENS and len(weights[0]) <= PICTURE_TOKENS


def _ys(count, rows):
    """The y of each of `count` tokens, centred in a column of `rows` token places."""
    offset = TOP + (rows - count) * ROW / 2
    return [offset + ROW * (i + 0.5) for i in range(count)]


def attention_picture(weights):
    """weights: n x m softmax rows -> an aria-hidden <svg>: a line per (query, key), stroke-opacity = weight.

    Each query's lines and label sit in <g class='attn-q' data-query=i> (boot.js lights a query's
    row there); the lines (class 'attn-line') come row by row, the order of the table's cells.
    """
    n, m = len(weights), len(weights[0])
    rows = max(n, m)
    height = TOP + rows * ROW + 2
    qy, ky = _ys(n, rows), _ys(m, rows)
    queries = [["g", {"class": "attn-q", "data-query": str(i)},
                ["text", {"x": str(LEFT - 6), "y": f"{qy[i] + 4:g}", "text-anchor": "end"}, str(i)],
                *[["line", {"class": "attn-line", "x1": str(LEFT), "y1": f"{qy[i]:g}", "x2": str(RIGHT),
                            "y2": f"{ky[j]:g}", "stroke-opacity": repr(w)}]
                  for j, w in enumerate(row)]]
               for i, row in enumerate(weights)]
    keys = [["text", {"x": str(RIGHT + 6), "y": f"{y + 4:g}"}, str(j)] for j, y in enumerate(ky)]
    return ["svg", {"class": "attn-picture", "viewBox": f"0 0 {WIDTH} {height:g}", "aria-hidden": "true",
                    "focusable": "false"},
            ["text", {"class": "attn-heading", "x": "0", "y": "10"}, "query"],
            ["text", {"class": "attn-heading", "x": str(WIDTH), "y": "10", "text-anchor": "end"}, "key"],
            ["g", {"class": "attn-keys"}, *keys], *queries]


def pictures_note(weights):
    """Said once above the tables when the pictures are left out (more than PICTURE_TOKENS tokens)."""
    return ["p", {"class": "note pictures-note"},
            f"Line pictures are drawn for up to {PICTURE_TOKENS} tokens; with {len(weights)} queries and "
            f"{len(weights[0])} keys they would be a tangle, so the coloured tables carry every weight alone."]


# --- why 1/sqrt(d): one row at three widths (static) --------------------------------------

SCALE_WIDTHS = (4, 64, 1024)
SCALE_KEYS = 8  # keys per row: a flat row gives each 1/8
SCALE_SEED = 0


def scale_rows():
    """Per width d: (d, largest weight with the scores divided by sqrt(d), largest weight without).

    One query against SCALE_KEYS keys, all mha's seeded unit-variance vectors (random_vectors);
    mha.attention_weights divides by sqrt(d) by default, and scale=1.0 leaves the dot products raw.
    """
    rows = []
    for d in SCALE_WIDTHS:
        query, *keys = random_vectors(1 + SCALE_KEYS, d, seed=SCALE_SEED)
        scaled = mha.attention_weights([query], keys)[0]
        raw = mha.attention_weights([query], keys, scale=1.0)[0]
        rows.append((d, max(scaled), max(raw)))
    return rows


BAR = 150  # picture units for a weight of 1


def scale_chart():
    """fig-scale: for each width, two bars (the largest weight with and without 1/sqrt(d)); lines at 1/8 and 1."""
    rows = scale_rows()
    left, pitch = 58, 44
    height = 20 + pitch * len(rows)
    flat = left + BAR / SCALE_KEYS
    parts = [["line", {"class": "scale-flat", "x1": f"{flat:g}", "y1": "14", "x2": f"{flat:g}",
                       "y2": f"{height - 4:g}"}],
             ["text", {"class": "scale-note", "x": f"{flat + 3:g}", "y": "10"}, f"flat: 1/{SCALE_KEYS}"],
             ["line", {"class": "scale-flat", "x1": str(left + BAR), "y1": "14", "x2": str(left + BAR),
                       "y2": f"{height - 4:g}"}],
             ["text", {"class": "scale-note", "x": str(left + BAR), "y": "10", "text-anchor": "middle"},
              "1: one key takes all"]]
    for k, (d, scaled, raw) in enumerate(rows):
        y = 20 + pitch * k
        parts += [["text", {"class": "scale-label", "x": "0", "y": f"{y + 16:g}"}, f"d = {d}"]]
        for b, (weight, cls, words) in enumerate(((scaled, "scaled", "÷√d"), (raw, "raw", "no ÷√d"))):
            top = y + b * 16
            parts += [["rect", {"class": f"scale-bar {cls}", "x": str(left), "y": f"{top:g}",
                                "width": f"{BAR * weight:g}", "height": "12"}],
                      ["text", {"class": "scale-value", "x": f"{left + BAR * weight + 4:g}", "y": f"{top + 10:g}"},
                       f"{fixed(weight)} {words}"]]
    label = "; ".join(f"d = {d}: {fixed(s)} dividing by the square root of d, {fixed(r)} without"
                      for d, s, r in rows)
    return ["figure", {"class": "scale-figure"},
            ["svg", {"class": "scale-chart", "viewBox": f"0 0 300 {height:g}", "role": "img",
                     "aria-label": f"largest weight of one softmax row over {SCALE_KEYS} keys: {label}"}, *parts],
            ["figcaption", {}, f"One random query against {SCALE_KEYS} random keys (entries of variance 1, "
                               f"seed {SCALE_SEED}): the largest weight of its softmax row, with the scores "
                               f"divided by √d (blue) and left as they are (orange). The dashed lines mark a flat "
                               f"row (1/{SCALE_KEYS} each) and a row that gives one key everything (1)."]]


def _scale_value(d, column):
    return lambda: fixed(next(row for row in scale_rows() if row[0] == d)[column])


FIGURES = {
    "fig-scale": Figure(lambda s, v, b: [scale_chart()]),
}
PROSE = {
    **{f"scale-{d}-scaled": _scale_value(d, 1) for d in SCALE_WIDTHS},
    **{f"scale-{d}-raw": _scale_value(d, 2) for d in SCALE_WIDTHS},
}
