"""Section 8 as a figure: softmax mass is shared, so distractors drain the relevant token.

The token list is lesson data: one query token (an instruction such as
"copy the order id"), one relevant token that matches it in both subspaces,
and k distractors that match it a little. Every weight comes from mha; the
weight the query puts on the relevant token falls in every head, and in the
one wide head, as k grows, because each distractor adds mass to every
softmax row's denominator.
"""

import mha
from page.dom import body_row, header_row, number_cell, table, weight_class
from page.state import MAX_DISTRACTORS

QUERY = [1.0, -1.0, 1.0, -1.0]      # token 0: the query row we read
RELEVANT = [3.0, 0.0, 2.0, 0.0]     # token 1: matches the query in both heads' slots (head 0 more)
DISTRACTORS = (                     # tokens 2..: near misses, cycled
    [1.0, 0.0, 0.5, 0.5],
    [0.5, 0.5, 1.0, 0.0],
    [1.0, 0.5, 1.0, 0.5],
)
COMPETITION_HEADS = 2
CURVE_COUNTS = (0, 1, 2, 4, 8, 16, MAX_DISTRACTORS)


def distractor_input(distractors):
    """<label>distractor tokens <input id='distractors'></label>: text, so any typed text reaches parse_distractors."""
    return ["label", {"for": "distractors", "class": "control"}, f"distractor tokens (0 to {MAX_DISTRACTORS}) ",
            ["input", {"id": "distractors", "type": "text", "inputmode": "numeric", "size": "4",
                       "autocomplete": "off", "value": str(distractors)}]]


def competition_tokens(distractors):
    """[QUERY, RELEVANT, then `distractors` near misses]: (2 + k) lists of 4 floats."""
    if isinstance(distractors, bool) or not isinstance(distractors, int) or not 0 <= distractors <= MAX_DISTRACTORS:
        raise ValueError(f"distractors must be a whole number from 0 to {MAX_DISTRACTORS}, got {distractors!r}")
    rows = [QUERY, RELEVANT, *[DISTRACTORS[i % len(DISTRACTORS)] for i in range(distractors)]]
    return [list(row) for row in rows]


def relevant_weights(distractors, heads=COMPETITION_HEADS):
    """The query's weight on the relevant token: [head 0, ..., one wide head], all from mha."""
    tokens = competition_tokens(distractors)
    result = mha.multi_head_attention(tokens, heads)
    _, wide = mha.single_head_attention(tokens)
    return [w[0][1] for w in result.weights] + [wide[0][1]]


def _head_names(heads):
    return [f"head {h}" for h in range(heads)] + ["one head"]


def _weight_cell(weight):
    """A weight cell with a bar whose length is its w0..w9 class (CSS; no inline style)."""
    bar = ["span", {"class": f"bar {weight_class(weight)}", "aria-hidden": "true"}]
    return [*number_cell(weight, weight_class(weight)), " ", bar]


def competition_figure(distractors, heads=COMPETITION_HEADS):
    """<table aria-label='weight on the relevant token'>: per head, alone vs with k distractors."""
    alone, now = relevant_weights(0, heads), relevant_weights(distractors, heads)
    head = header_row("head", ["no distractors", f"{distractors} distractors"])
    rows = [body_row(name, [_weight_cell(a), _weight_cell(b)])
            for name, a, b in zip(_head_names(heads), alone, now)]
    caption = f"how much of token 0's attention lands on the relevant token 1, among {len(competition_tokens(distractors))} tokens"
    return table("weight on the relevant token", caption, head, rows, "competition")


def competition_curve(heads=COMPETITION_HEADS, counts=CURVE_COUNTS):
    """<table aria-label='relevant weight by distractor count'>: rows = k, columns = heads."""
    head = header_row("distractors", _head_names(heads))
    rows = [body_row(str(k), [_weight_cell(w) for w in relevant_weights(k, heads)]) for k in counts]
    return table("relevant weight by distractor count", "the weight on the relevant token as distractors pile up",
                 head, rows, "competition")
