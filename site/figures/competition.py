"""Section 9 as a figure: one softmax row has one budget, and distractors compete for it.

The tokens are lesson data (mha.lesson): the relevant token 0, then k distractors, then
the query as the last token, read under a causal mask as a decoder-only model reads it
(the last token sees every token before it, and itself). The distractors agree with the
query only in head 1's slots, so head 1 and the one wide head (which reads every slot)
lose weight on token 0 as k grows, while head 0 keeps nearly all of its own.

Every weight comes from mha.multi_head_attention(causal=True); this module only arranges
them: a line chart (SVG, aria-hidden) and two tables that carry the same numbers.
"""

import functools

import mha
from figures.registry import Figure
from mha.lesson import COMPETITION_DISTRACTORS, COMPETITION_HEADS, COMPETITION_QUERY, COMPETITION_RELEVANT
from page.dom import band_class, body_row, fixed, header_row, number_cell, table, weight_class
from page.state import MAX_DISTRACTORS

NAMES = [f"head {h}" for h in range(COMPETITION_HEADS)] + ["one wide head"]  # the lines, in the order of relevant_weights
BANDS = [band_class(h) for h in range(COMPETITION_HEADS)] + ["wide"]     # their colours (style.css, competition.css)


# --- the numbers (all from mha) --------------------------------------------------

def competition_tokens(distractors):
    """[RELEVANT, `distractors` distractors (cycled), QUERY]: (k + 2) lists of 4 floats."""
    if isinstance(distractors, bool) or not isinstance(distractors, int) or not 0 <= distractors <= MAX_DISTRACTORS:
        raise ValueError(f"distractors must be a whole number from 0 to {MAX_DISTRACTORS}, got {distractors!r}")
    cycle = COMPETITION_DISTRACTORS
    rows = [COMPETITION_RELEVANT, *[cycle[i % len(cycle)] for i in range(distractors)], COMPETITION_QUERY]
    return [list(row) for row in rows]


def relevant_weights(distractors):
    """The last token's weight on token 0: [head 0, head 1, one wide head], causal mask on."""
    tokens = competition_tokens(distractors)
    heads = mha.multi_head_attention(tokens, COMPETITION_HEADS, causal=True).weights
    wide = mha.multi_head_attention(tokens, 1, causal=True).weights[0]
    return [w[-1][0] for w in heads] + [wide[-1][0]]


@functools.lru_cache(maxsize=1)
def curve():
    """relevant_weights(k) for every k in 0..MAX_DISTRACTORS: the lesson data never changes, so once."""
    return tuple(tuple(relevant_weights(k)) for k in range(MAX_DISTRACTORS + 1))


# --- the tables: the accessible source of the chart's numbers ------------------------

def distractor_input(distractors):
    """<label>distractor tokens <input id='distractors'></label>: text, so any typed text reaches parse_distractors."""
    return ["label", {"for": "distractors", "class": "control"}, f"distractor tokens (0 to {MAX_DISTRACTORS}) ",
            ["input", {"id": "distractors", "type": "text", "inputmode": "numeric", "size": "4",
                       "autocomplete": "off", "aria-describedby": "distractors-error", "value": str(distractors)}]]


def _weight_cell(weight):
    """A weight cell with a bar whose length is its w0..w9 class (CSS; no inline style)."""
    bar = ["span", {"class": f"bar {weight_class(weight)}", "aria-hidden": "true"}]
    return [*number_cell(weight, weight_class(weight)), " ", bar]


def competition_figure(distractors):
    """<table aria-label='weight on the relevant token'>: per head, with no distractors and with k."""
    alone, now = curve()[0], curve()[distractors]
    head = header_row("head", ["no distractors", f"{distractors} distractors"])
    rows = [body_row(name, [_weight_cell(a), _weight_cell(b)]) for name, a, b in zip(NAMES, alone, now)]
    caption = (f"how much of the last token's attention lands on token 0, the relevant one, "
               f"among {distractors + 2} tokens (causal mask on)")
    return table("weight on the relevant token", caption, head, rows, "competition")


def competition_curve(distractors):
    """<table aria-label='relevant weight by distractor count'>: every count 0..30, the current one marked."""
    head = header_row("distractors", NAMES)
    rows = []
    for k, weights in enumerate(curve()):
        row = body_row(str(k), [_weight_cell(w) for w in weights])
        if k == distractors:
            row[1].update({"class": "current", "aria-current": "true"})
        rows.append(row)
    return table("relevant weight by distractor count",
                 "the chart's numbers: the weight on token 0 at every distractor count", head, rows, "competition")


# --- the chart: SVG trees, drawn at build time and redrawn on "competition" -----------

WIDTH, HEIGHT = 400, 240                        # viewBox units; CSS scales the chart to its column
LEFT, RIGHT, TOP, BOTTOM = 50, 282, 24, 200     # the plot area; right of it, the lines' names
Y_TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)
X_TICKS = tuple(range(0, MAX_DISTRACTORS + 1, 5))
LABEL_GAP = 12                                  # the least distance between two line names


def _x(k):
    return round(LEFT + (RIGHT - LEFT) * k / MAX_DISTRACTORS, 2)


def _y(weight):
    return round(BOTTOM - (BOTTOM - TOP) * weight, 2)


def _text(x, y, words, cls, anchor="start"):
    return ["text", {"x": x, "y": y, "class": cls, "text-anchor": anchor}, words]


def _axes():
    """Grid lines and tick labels: weight 0..1 up, distractor count 0..30 across."""
    parts = []
    for w in Y_TICKS:
        parts.append(["line", {"x1": LEFT, "x2": RIGHT, "y1": _y(w), "y2": _y(w), "class": "grid"}])
        parts.append(_text(LEFT - 6, _y(w) + 4, f"{w:g}", "tick", "end"))
    for k in X_TICKS:
        parts.append(["line", {"x1": _x(k), "x2": _x(k), "y1": BOTTOM, "y2": BOTTOM + 4, "class": "axis"}])
        parts.append(_text(_x(k), BOTTOM + 16, str(k), "tick", "middle"))
    parts.append(["line", {"x1": LEFT, "x2": RIGHT, "y1": BOTTOM, "y2": BOTTOM, "class": "axis"}])
    middle = (TOP + BOTTOM) / 2
    parts.append(["text", {"x": 12, "y": middle, "class": "axis-title", "text-anchor": "middle",
                           "transform": f"rotate(-90 12 {middle})"}, "weight on token 0"])
    parts.append(_text((LEFT + RIGHT) / 2, HEIGHT - 6, "distractor tokens", "axis-title", "middle"))
    return ["g", {}, *parts]


def _label_heights(ends):
    """The y of each line's name at the right end: its last point, nudged apart by LABEL_GAP."""
    order = sorted(range(len(ends)), key=lambda i: ends[i])
    placed = {}
    for i in order:
        placed[i] = max(ends[i], max(placed.values(), default=-LABEL_GAP) + LABEL_GAP)
    return [placed[i] for i in range(len(ends))]


def _lines():
    """One polyline per head and one for the wide head, each named at its right end."""
    columns = list(zip(*curve()))
    lines = [["polyline", {"class": f"line {band}", "fill": "none",
                           "points": " ".join(f"{_x(k)},{_y(w)}" for k, w in enumerate(column))}]
             for band, column in zip(BANDS, columns)]
    heights = _label_heights([_y(column[-1]) + 4 for column in columns])
    names = [_text(RIGHT + 8, y, name, f"line-name {band}") for name, band, y in zip(NAMES, BANDS, heights)]
    return ["g", {}, *lines, *names]


def _marker(distractors):
    """The current count: a vertical rule, a dot on each line, and the count above the plot."""
    x = _x(distractors)
    dots = [["circle", {"cx": x, "cy": _y(w), "r": 4, "class": f"dot {band}"}]
            for band, w in zip(BANDS, curve()[distractors])]
    anchor = "start" if distractors < MAX_DISTRACTORS / 2 else "end"
    words = f"{distractors} distractor{'' if distractors == 1 else 's'}"
    return ["g", {"class": "now"},
            ["line", {"x1": x, "x2": x, "y1": TOP - 4, "y2": BOTTOM, "class": "rule"}],
            _text(x + (4 if anchor == "start" else -4), TOP - 8, words, "now-label", anchor), *dots]


def competition_chart(distractors):
    """<svg aria-hidden='true'>: the weight on token 0 against the distractor count, one line per head.

    The tables beside it carry the same numbers for screen readers.
    """
    return ["svg", {"viewBox": f"0 0 {WIDTH} {HEIGHT}", "class": "competition-chart", "aria-hidden": "true",
                    "focusable": "false", "data-distractors": str(distractors)},
            _axes(), _lines(), _marker(distractors)]


# --- numbers the prose prints (<!--value:KEY-->) ---------------------------------------

def _prose_numbers():
    keys = {"head-0": 0, "head-1": 1, "wide": 2}
    ends = {"alone": 0, "most": MAX_DISTRACTORS}
    return {f"competition-{name}-{end}": (lambda i=i, k=k: fixed(curve()[k][i]))
            for name, i in keys.items() for end, k in ends.items()}


# --- the registry: this family's elements ----------------------------------------

FIGURES = {  # section 9: one budget per row
    "fig-distractors": Figure(lambda s, v, b: [distractor_input(s["distractors"])], ("controls",)),
    "competition-chart": Figure(lambda s, v, b: [competition_chart(s["distractors"])], ("competition", "controls")),
    "competition-table": Figure(lambda s, v, b: [competition_figure(s["distractors"])], ("competition", "controls")),
    "competition-curve": Figure(lambda s, v, b: [competition_curve(s["distractors"])], ("competition", "controls")),
}
PROSE = {**_prose_numbers(), "competition-max": lambda: str(MAX_DISTRACTORS)}
