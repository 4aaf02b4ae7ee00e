"""Section 10 as a figure: one softmax row has one budget, and distractors compete for it.

The tokens are lesson data (mha.lesson): the relevant token 0, then k distractors, then
the query as the last token, read under a causal mask as a decoder-only model reads it
(the last token sees every token before it, and itself). Token 0 is the query's best match
in head 0's slots; every distractor beats it in head 1's. So head 1 and the one wide head
lose token 0 fast as k grows, and head 0 loses it slowly: a distractor's weight is a fixed
fraction of token 0's in each head, and only the count of distractors grows.

Every weight comes from mha.multi_head_attention; this module only arranges them: a line
chart on a log axis (SVG, aria-hidden), two tables that carry the same numbers, and the
sentence under the chart that quotes them at the reader's count.
"""

import functools
import math
from typing import NamedTuple

import mha
from figures.registry import Figure
from mha.lesson import COMPETITION_DISTRACTORS, COMPETITION_HEADS, COMPETITION_QUERY, COMPETITION_RELEVANT
from page.dom import band_class, body_row, counted, header_row, number_cell, share_text, table, weight_class
from page.state import MAX_DISTRACTORS

NAMES = [f"head {h}" for h in range(COMPETITION_HEADS)] + ["one wide head"]  # the lines, in the order of relevant_weights
BANDS = [band_class(h) for h in range(COMPETITION_HEADS)] + ["wide"]     # their colours (style.css, competition.css)
HELD = "held"  # head 0's line, dot, name and row: competition.css hides them until section 10's Check
SAMPLES = (*range(11), 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 120, 150, 200, 250, 300, 400, 500, 600, 800,
           MAX_DISTRACTORS)  # the counts the chart's lines pass through: about even steps on its log axis


def distractors_text(count):
    """'no distractors', '1 distractor', '1,000 distractors'."""
    return "no distractors" if count == 0 else counted(count, "distractor")


# --- the numbers (all from mha) --------------------------------------------------

def competition_tokens(distractors):
    """[RELEVANT, `distractors` distractors (cycled), QUERY]: (k + 2) lists of 4 floats."""
    if isinstance(distractors, bool) or not isinstance(distractors, int) or not 0 <= distractors <= MAX_DISTRACTORS:
        raise ValueError(f"distractors must be a whole number from 0 to {MAX_DISTRACTORS}, got {distractors!r}")
    cycle = COMPETITION_DISTRACTORS
    rows = [COMPETITION_RELEVANT, *[cycle[i % len(cycle)] for i in range(distractors)], COMPETITION_QUERY]
    return [list(row) for row in rows]


def query_rows(distractors):
    """The last token's softmax row over all k + 2 tokens: [head 0, head 1, one wide head].

    Under the causal mask the last token sees every token, itself included, so its row is the
    row of one query over the whole sequence as context: mha computes that row alone, not the
    (k + 2) x (k + 2) table (tests check it equals the causal table's last row).
    """
    tokens = competition_tokens(distractors)
    heads = mha.multi_head_attention(tokens[-1:], COMPETITION_HEADS, context=tokens).weights
    wide = mha.multi_head_attention(tokens[-1:], 1, context=tokens).weights[0]
    return [w[0] for w in heads] + [wide[0]]


def relevant_weights(distractors):
    """The last token's weight on token 0: [head 0, head 1, one wide head], causal mask on."""
    return [row[0] for row in query_rows(distractors)]


@functools.lru_cache(maxsize=1)
def leads():
    """Token 0's weight in units of one distractor's, per line: the same at every count (mha.weight_ratios)."""
    return tuple(mha.weight_ratios(row, 1)[0] for row in query_rows(1))


def head_1_trail():
    """In head 1, one distractor's weight in units of token 0's: where every distractor beats it."""
    return mha.weight_ratios(query_rows(1)[1], 0)[1]


@functools.lru_cache(maxsize=1)
def curve():
    """{k: relevant_weights(k)} for k in SAMPLES: the lesson data never changes, so once."""
    return {k: tuple(relevant_weights(k)) for k in SAMPLES}


def weights_at(distractors):
    """relevant_weights(k), from the curve when k is one of its samples."""
    return curve().get(distractors) or tuple(relevant_weights(distractors))


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
    """<table aria-label='weight on the relevant token'>: per head, with no distractors and with k (one column
    at k = 0, where the two would be the same)."""
    counts = (0,) if distractors == 0 else (0, distractors)
    head = header_row("head", [distractors_text(k) for k in counts])
    columns = [weights_at(k) for k in counts]
    rows = [body_row(name, [_weight_cell(column[i]) for column in columns]) for i, name in enumerate(NAMES)]
    rows[0][1]["class"] = HELD
    caption = (f"how much of the last token's attention lands on token 0, the relevant one, "
               f"among {len(competition_tokens(distractors)):,} tokens (masked causally here, whatever "
               f"section 3's box says)")
    return table("weight on the relevant token", caption, head, rows, "competition")


def competition_curve(distractors):
    """<table aria-label='relevant weight by distractor count'>: the chart's counts and the current one, marked."""
    head = header_row("distractors", NAMES)
    rows = []
    for k in sorted({*SAMPLES, distractors}):
        row = body_row(f"{k:,}", [_weight_cell(w) for w in weights_at(k)])
        if k == distractors:
            row[1].update({"class": "current", "aria-current": "true"})
        rows.append(row)
    return table("relevant weight by distractor count",
                 "the chart's numbers: the weight on token 0 at the counts it plots, and at yours", head, rows,
                 "competition")


# --- the chart: SVG trees, drawn at build time and redrawn on "competition" -----------

class Layout(NamedTuple):
    """One drawing of the chart: its viewBox, plot area (right of it, the lines' names) and spacing.

    A phone gets a drawing of its own (NARROW, shown by competition.css under 480 px), not the desktop one
    scaled down: its text stays at least 11 px on a 375 px screen.
    """

    name: str
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    label_gap: int  # the least distance between two line names (more than their font's height)


WIDE = Layout("wide", 400, 240, 50, 282, 24, 200, 12)
NARROW = Layout("narrow", 320, 260, 44, 206, 26, 212, 16)
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM, LABEL_GAP = WIDE[1:]  # the desktop drawing, for the tests' geometry
Y_TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)
X_TICKS = (0, 1, 10, 100, MAX_DISTRACTORS)  # labelled; between them, unlabelled marks at 3, 30, 300
X_MINOR = (3, 30, 300)


def _x(k, at=WIDE):
    """Across: log(1 + k), so 0 sits at the left edge and each tenfold more takes about the same step."""
    return round(at.left + (at.right - at.left) * math.log1p(k) / math.log1p(MAX_DISTRACTORS), 2)


def _y(weight, at=WIDE):
    return round(at.bottom - (at.bottom - at.top) * weight, 2)


def _text(x, y, words, cls, anchor="start"):
    return ["text", {"x": x, "y": y, "class": cls, "text-anchor": anchor}, words]


def _axes(at):
    """Grid lines and tick labels: weight 0..1 up, distractor count 0..MAX_DISTRACTORS across (log).

    The last count's label ends at the axis on a phone, clear of the line names beside it.
    """
    parts = []
    for w in Y_TICKS:
        parts.append(["line", {"x1": at.left, "x2": at.right, "y1": _y(w, at), "y2": _y(w, at), "class": "grid"}])
        parts.append(_text(at.left - 6, _y(w, at) + 4, f"{w:g}", "tick", "end"))
    for k in X_TICKS:
        x = _x(k, at)
        parts.append(["line", {"x1": x, "x2": x, "y1": at.bottom, "y2": at.bottom + 4, "class": "axis"}])
        last = k == X_TICKS[-1] and at is NARROW
        parts.append(_text(x + 4 if last else x, at.bottom + 17, f"{k:,}", "tick", "end" if last else "middle"))
    for k in X_MINOR:
        x = _x(k, at)
        parts.append(["line", {"x1": x, "x2": x, "y1": at.bottom, "y2": at.bottom + 2, "class": "axis"}])
    parts.append(["line", {"x1": at.left, "x2": at.right, "y1": at.bottom, "y2": at.bottom, "class": "axis"}])
    middle = (at.top + at.bottom) / 2
    parts.append(["text", {"x": 12, "y": middle, "class": "axis-title", "text-anchor": "middle",
                           "transform": f"rotate(-90 12 {middle})"}, "weight on token 0"])
    parts.append(_text((at.left + at.right) / 2, at.height - 6, "distractor tokens (log scale)", "axis-title",
                       "middle"))
    return ["g", {}, *parts]


def _label_heights(ends, at=WIDE):
    """The y of each line's name at the right end: its last point, nudged apart by the layout's label gap.

    From the lowest name up, so no name drops below the plot onto the tick labels.
    """
    order = sorted(range(len(ends)), key=lambda i: -ends[i])
    placed = {}
    for i in order:
        placed[i] = min(ends[i], at.bottom + 4, min(placed.values(), default=math.inf) - at.label_gap)
    return [placed[i] for i in range(len(ends))]


def _held(band):
    return f"{band} {HELD}" if band == BANDS[0] else band


def _lines(at):
    """One polyline per head and one for the wide head, each named at its right end."""
    columns = list(zip(*curve().values()))
    lines = [["polyline", {"class": f"line {_held(band)}", "fill": "none",
                           "points": " ".join(f"{_x(k, at)},{_y(w, at)}" for k, w in zip(SAMPLES, column))}]
             for band, column in zip(BANDS, columns)]
    heights = _label_heights([_y(column[-1], at) + 4 for column in columns], at)
    names = [_text(at.right + 8, y, name, f"line-name {_held(band)}") for name, band, y in zip(NAMES, BANDS, heights)]
    return ["g", {}, *lines, *names]


def _marker(distractors, at):
    """The current count: a vertical rule, a dot on each line, and the count above the plot."""
    x = _x(distractors, at)
    dots = [["circle", {"cx": x, "cy": _y(w, at), "r": 4, "class": f"dot {_held(band)}"}]
            for band, w in zip(BANDS, weights_at(distractors))]
    anchor = "start" if x < (at.left + at.right) / 2 else "end"
    return ["g", {"class": "now"},
            ["line", {"x1": x, "x2": x, "y1": at.top - 4, "y2": at.bottom, "class": "rule"}],
            _text(x + (4 if anchor == "start" else -4), at.top - 8, distractors_text(distractors), "now-label", anchor),
            *dots]


def competition_chart(distractors, at=WIDE):
    """<svg aria-hidden='true'>: the weight on token 0 against the distractor count, one line per head.

    The tables beside it carry the same numbers for screen readers.
    """
    return ["svg", {"viewBox": f"0 0 {at.width} {at.height}", "class": f"competition-chart {at.name}",
                    "aria-hidden": "true", "focusable": "false", "data-distractors": str(distractors)},
            _axes(at), _lines(at), _marker(distractors, at)]


# --- the prose: the sentence under the chart, and the numbers the section prints ---------

def competition_now(distractors):
    """The sentence that quotes the chart's dots: what each line keeps on token 0 at the reader's count."""
    head_0, head_1, wide = (share_text(w) for w in weights_at(distractors))
    return [f"With {distractors_text(distractors)}, head 0 keeps {head_0} of its row on token 0, "
            f"the one wide head {wide} and head 1 {head_1}."]


def _prose_numbers():
    """<!--value:KEY--> numbers: token 0's weight over a distractor's (in head 1, a distractor's over token 0's)."""
    return {"competition-lead-head-0": lambda: f"{leads()[0]:.1f}",
            "competition-lead-wide": lambda: f"{leads()[2]:.1f}",
            "competition-wide-width": lambda: str(len(COMPETITION_QUERY)),  # the wide head reads every slot
            "competition-trail-head-1": lambda: f"{head_1_trail():.1f}"}


# --- the registry: this family's elements ----------------------------------------

FIGURES = {  # section 10: one budget per row
    "fig-distractors": Figure(lambda s, v, b: [distractor_input(s["distractors"])], ("controls",)),
    "competition-chart": Figure(lambda s, v, b: [competition_chart(s["distractors"], at) for at in (WIDE, NARROW)],
                                ("competition", "controls")),
    "competition-table": Figure(lambda s, v, b: [competition_figure(s["distractors"])], ("competition", "controls")),
    "competition-curve": Figure(lambda s, v, b: [competition_curve(s["distractors"])], ("competition", "controls")),
    "competition-now": Figure(lambda s, v, b: competition_now(s["distractors"]), ("competition", "controls")),
}
PROSE = _prose_numbers()
