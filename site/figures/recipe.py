"""Sections 1 and 2 as figures: why one head blurs, and what the recipe does to the shapes and the cost.

- fig-blend (section 1, static): the lesson's three tokens (mha.BLEND_TOKENS), read by the last
  one under a causal mask. For each head and for the one wide head, the value vectors it mixes,
  the weight it gives each, and the output: a weighted average of those values.
- fig-recipe-flow (section 2, live): the data flow n x d -> h x (n x d/h) -> attend -> n x d -> W_O,
  an SVG whose labels follow the reader's tokens, width, heads and key/value heads.
- fig-recipe-line (section 2, live): one sentence from mha.attention_costs: the reader's heads cost what
  one head of the same width costs (fewer with shared key/value heads); only the weight tables multiply.
- fig-cost-seq-len, fig-cost-share (section 2, live): a sequence length, and how much of one layer of
  mha.COST_MODEL's multiply-adds the n x n part takes there (mha.quadratic_share), causal or not.

Every number comes from mha; this module only arranges them.
"""

import mha
from figures.registry import Figure
from page.dom import (band_class, body_row, classes, fixed, header_row, number_cell, number_text, vector_text,
                      weight_class)
from page.state import model_shape

# --- section 1: one head blends what it finds ----------------------------------------------

QUERY = len(mha.BLEND_TOKENS) - 1  # the last token asks; the causal mask lets it see every token


def blend_results():
    """(two-head result, one-wide-head result) of mha.BLEND_TOKENS, causal: what fig-blend shows."""
    tokens = mha.BLEND_TOKENS
    return (mha.multi_head_attention(tokens, mha.BLEND_HEADS, causal=True),
            mha.multi_head_attention(tokens, 1, causal=True))


def _token_name(t):
    return f"token {t} (query)" if t == QUERY else f"token {t}"


def blend_table(label, caption, weights, values, output, slots):
    """One head's mix: a row per token (its weight, then its value in the head's slots), then the output row."""
    head = header_row("token", ["weight", *[f"slot {s}" for s in slots]])
    rows = [body_row(_token_name(t), [number_cell(w, weight_class(w)),
                                      *[["td", {"class": "num", "data-value": repr(x)}, number_text(x)] for x in v]])
            for t, (w, v) in enumerate(zip(weights, values))]
    out = ["tr", {"class": "blend-output"}, ["th", {"scope": "row"}, "output"],
           ["td", {}, ""], *[number_cell(x) for x in output]]
    return ["table", {"aria-label": label, "class": "figure-table blend"}, ["caption", {}, caption],
            ["thead", {}, head], ["tbody", {}, *rows, out]]


def blend_figure():
    """fig-blend: head 0, head 1 and the one wide head, each as the values it mixes and its output."""
    result, wide = blend_results()
    views = []
    for h, (start, stop) in enumerate(result.head_slots):
        weights = result.weights[h][QUERY]
        caption = f"head {h}, slots {start}-{stop - 1}: {fixed(max(weights))} on token {weights.index(max(weights))}"
        views.append(["div", classes("head-view", band_class(h)),
                      blend_table(f"head {h} mix", caption, weights, result.value_heads[result.kv_head_of[h]],
                                  result.head_outputs[h][QUERY], range(start, stop))])
    weights = wide.weights[0][QUERY]
    caption = f"one head, all {wide.width} slots: {fixed(weights[0])} on token 0, {fixed(weights[1])} on token 1"
    views.append(["div", classes("head-view", "wide"),
                  blend_table("one head mix", caption, weights, wide.value_heads[0], wide.outputs[QUERY],
                              range(wide.width))])
    note = ["p", {"class": "note"}, "Each output slot is the sum of weight × value down its column: "
                                     "a weighted average of the values above it."]
    return ["div", {}, ["div", {"class": "head-tables blend-tables"}, *views], note]


def _blend_prose():
    result, wide = blend_results()
    tokens = mha.BLEND_TOKENS
    return {
        "blend-query": lambda: vector_text(tokens[QUERY]),
        "blend-token-0": lambda: vector_text(tokens[0]),
        "blend-token-1": lambda: vector_text(tokens[1]),
        "blend-head-0-weight": lambda: fixed(result.weights[0][QUERY][0]),
        "blend-head-1-weight": lambda: fixed(result.weights[1][QUERY][1]),
        "blend-head-0-output": lambda: vector_text(result.head_outputs[0][QUERY], fixed),
        "blend-head-1-output": lambda: vector_text(result.head_outputs[1][QUERY], fixed),
        "blend-token-0-head-0": lambda: vector_text(result.value_heads[0][0]),
        "blend-token-1-head-1": lambda: vector_text(result.value_heads[1][1]),
        "blend-wide-weight-0": lambda: fixed(wide.weights[0][QUERY][0]),
        "blend-wide-weight-1": lambda: fixed(wide.weights[0][QUERY][1]),
        "blend-wide-output": lambda: vector_text(wide.outputs[QUERY], fixed),
    }


# --- section 2: the data flow ---------------------------------------------------------------

VIEW_W = 360                 # the viewBox's width; the page scales it to the column (375 px phones too)
STEP_W = 96                  # the left column: each step's name
COL_X, COL_W = 100, 256      # the boxes' column
BOX_H, GAP, PAD = 38, 28, 6  # box height, the space between rows (arrows, step names), between boxes
MAX_DRAWN_HEADS = 4          # more heads: head 0, head 1, "... k more", the last head


def state_costs(state):
    """mha.attention_costs for the figure's tokens, width, heads and key/value heads."""
    return mha.attention_costs(len(state["tokens"]), len(state["tokens"][0]), state["heads"], state["kv_heads"])


def _size(rows, cols):
    return f"{rows} × {cols}"


def _drawn_heads(heads):
    """The head indices drawn as columns; None stands for the heads left out."""
    if heads <= MAX_DRAWN_HEADS:
        return list(range(heads))
    return [0, 1, None, heads - 1]


def flow_rows(costs):
    """The diagram as rows of boxes [(name, shape, colour class) or None (left-out heads)] and the step
    names between rows: (rows, steps). Every shape is a count from mha.attention_costs."""
    n, d, hw, kvw = costs.tokens, costs.width, costs.head_width, costs.kv_width
    drawn = _drawn_heads(costs.heads)
    more = f"{costs.heads - 3} more"

    def per_head(name, shape):
        return [None if h is None else (name(h), shape, band_class(h)) for h in drawn]

    rows = [
        [("tokens", _size(n, d), "")],
        [("queries", _size(n, d), ""), ("keys", _size(n, kvw), ""), ("values", _size(n, kvw), "")],
        per_head(lambda h: f"head {h}", _size(n, hw)),
        per_head(lambda h: "weights", _size(n, n)),
        per_head(lambda h: "output", _size(n, hw)),
        [("concatenated", _size(n, d), "")],
        [("output", _size(n, d), "")],
    ]
    split = f"split in {costs.heads}" if costs.heads > 1 else "one head"
    steps = ["project", split, "softmax", "sum values", "concatenate", "× W_O"]
    return rows, steps, more


def flow_description(costs):
    """The diagram in one paragraph: its <desc>, and what a screen reader says."""
    n, d, h, g, hw = costs.tokens, costs.width, costs.heads, costs.kv_heads, costs.head_width
    shared = ", shared by groups of query heads" if g < h else ""
    kv = f"{g} key/value head{'s' if g > 1 else ''}{shared}"
    split = (f"the queries are split into {h} heads of width {hw}, {_size(n, hw)} each; every head turns"
             if h > 1 else f"the queries stay one head of width {hw}, {_size(n, hw)}; it turns")
    outputs = f"the {h} outputs are concatenated into {_size(n, d)} and" if h > 1 else "the output is"
    tokens = f"{n} tokens of width {d} ({_size(n, d)}) are" if n > 1 else f"1 token of width {d} ({_size(n, d)}) is"
    return (f"{tokens} projected to queries {_size(n, d)} and to keys and "
            f"values {_size(n, costs.kv_width)} each ({kv}); {split} its scores into {_size(n, n)} "
            f"softmax weights and sums values into an output of {_size(n, hw)}; {outputs} "
            f"multiplied by W_O ({_size(d, d)}) into {_size(n, d)}.")


def _box_xs(count):
    """(x, width) of `count` boxes side by side in the column (one box: centred, narrower)."""
    if count == 1:
        return [(COL_X + COL_W / 2 - 75, 150)]
    width = (COL_W - PAD * (count - 1)) / count
    return [(round(COL_X + i * (width + PAD), 1), round(width, 1)) for i in range(count)]


def _box(x, y, width, name, shape, band):
    middle = round(x + width / 2, 1)
    return ["g", classes("flow-box", band),
            ["rect", {"x": x, "y": y, "width": width, "height": BOX_H, "rx": 4}],
            ["text", {"x": middle, "y": y + 15, "class": "flow-name", "text-anchor": "middle"}, name],
            ["text", {"x": middle, "y": y + 31, "class": "flow-shape", "text-anchor": "middle"}, shape]]


def _arrow(x1, y1, x2, y2):
    head = f"M {x2 - 4} {y2 - 6} L {x2} {y2} L {x2 + 4} {y2 - 6} Z"
    return ["g", {"class": "flow-arrow"}, ["line", {"x1": x1, "y1": y1, "x2": x2, "y2": y2}], ["path", {"d": head}]]


def _centres(row):
    return [(round(x + w / 2, 1), box is not None) for (x, w), box in zip(_box_xs(len(row)), row)]


def _arrows(upper, lower, y_top, y_bottom):
    """Arrows from one row's boxes to the next: one to one, fanning out or in, or through a bus line."""
    ups = [x for x, drawn in _centres(upper) if drawn]
    downs = [x for x, drawn in _centres(lower) if drawn]
    if len(ups) == len(downs):
        return [_arrow(a, y_top, b, y_bottom) for a, b in zip(ups, downs)]
    if len(ups) == 1 or len(downs) == 1:
        return [_arrow(a, y_top, b, y_bottom) for a in ups for b in downs]
    bus = y_top + GAP / 2
    return [*[["line", {"class": "flow-line", "x1": a, "y1": y_top, "x2": a, "y2": bus}] for a in ups],
            ["line", {"class": "flow-line", "x1": min(ups + downs), "y1": bus, "x2": max(ups + downs), "y2": bus}],
            *[_arrow(b, bus, b, y_bottom) for b in downs]]


def flow_diagram(costs):
    """fig-recipe-flow's SVG: the recipe's steps on the left, the shapes they produce as boxes."""
    rows, steps, more = flow_rows(costs)
    children, y = [], 0
    for r, row in enumerate(rows):
        for (x, width), box in zip(_box_xs(len(row)), row):
            if box is None:
                middle = round(x + width / 2, 1)
                children.append(["text", {"x": middle, "y": y + 15, "class": "flow-name", "text-anchor": "middle"},
                                 more])
                children.append(["text", {"x": middle, "y": y + 31, "class": "flow-shape", "text-anchor": "middle"},
                                 "…"])
            else:
                children.append(_box(x, y, width, *box))
        if r < len(steps):
            children += _arrows(row, rows[r + 1], y + BOX_H, y + BOX_H + GAP)
            children.append(["text", {"x": 0, "y": y + BOX_H + GAP / 2 + 4, "class": "flow-step"}, steps[r]])
        y += BOX_H + GAP
    height = y - GAP
    return ["svg", {"viewBox": f"0 0 {VIEW_W} {height}", "class": "flow", "role": "img",
                    "aria-labelledby": "recipe-flow-title recipe-flow-desc"},
            ["title", {"id": "recipe-flow-title"}, "The recipe's shapes"],
            ["desc", {"id": "recipe-flow-desc"}, flow_description(costs)],
            *children]


# --- section 2: what it costs ---------------------------------------------------------------

def _plural(count, word):
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def _kept(size):
    """A size such as '2 × 2' in a span the line does not break inside (on a phone it wraps elsewhere)."""
    return ["span", {"class": "size"}, size]


def cost_line(costs):
    """The reader's heads (mha.AttentionCosts) against one head of the same width, in one sentence: the
    parameters and multiply-adds, whether they are the same or fewer (smaller W_K and W_V), and the weight
    tables, h of n x n. The comparison is made on the counts, not assumed."""
    n, d, h, g = costs.tokens, costs.width, costs.heads, costs.kv_heads
    one = mha.attention_costs(n, d, 1)
    counts = f"{costs.parameters:,} parameters and {costs.multiply_adds:,} multiply-adds for {_plural(n, 'token')}"
    tables = [f"{_plural(h, 'weight table')} of ", _kept(_size(n, n))]
    if h == 1:
        return ["p", {"class": "cost-line"}, f"At width {d}, 1 head: {counts}. This is the one wide head, with ",
                *tables, "; pick more heads above to compare."]
    sizes = f"At width {d}, {h} heads" + (f" sharing {_plural(g, 'key/value head')}" if g < h else "")
    if (costs.parameters, costs.multiply_adds) == (one.parameters, one.multiply_adds):
        verdict = [["strong", {}, f"the same as one head of width {d}"]]
    elif costs.parameters < one.parameters and costs.multiply_adds < one.multiply_adds:
        verdict = [["strong", {}, f"fewer than one head of width {d}"],
                   f" ({one.parameters:,} and {one.multiply_adds:,}), since W_K and W_V are ",
                   _kept(_size(d, costs.kv_width)), " instead of ", _kept(_size(d, d))]
    else:  # not reached by any setting the page offers (tests/unit/test_recipe_figures.py tries them all)
        verdict = [f"against {one.parameters:,} and {one.multiply_adds:,} for one head of width {d}"]
    return ["p", {"class": "cost-line"}, f"{sizes}: {counts}, ", *verdict, "; ", *tables, " instead of 1."]


def share_text(share):
    """A share in [0, 1] as a percentage: whole percents, but two decimals within 1% of either end, so the
    field's ends (1 and 10,000,000 tokens: 0.02%, 99.95%) do not read as 0% or 100% (0.00039 -> '0.04%')."""
    return f"{share:.0%}" if share in (0, 1) or 0.01 <= share <= 0.99 else f"{share:.2%}"


def seq_len_field(seq_len):
    """<label>sequence length <input id='cost-seq-len'></label>: text, so any typed text reaches
    state.parse_cost_seq_len (and its sentence reaches #cost-seq-len-error)."""
    return ["label", {"for": "cost-seq-len", "class": "control"}, "sequence length n (tokens) ",
            ["input", {"id": "cost-seq-len", "type": "text", "inputmode": "numeric", "size": "9",
                       "autocomplete": "off", "aria-describedby": "cost-seq-len-error", "value": str(seq_len)}]]


def cost_share(seq_len):
    """One layer of mha.COST_MODEL over seq_len tokens: the share of its multiply-adds that the n x n part
    (scores and weighted sums) takes, counted over every query-key pair and under a causal mask: children."""
    shape = model_shape(mha.COST_MODEL)
    every, causal = mha.model_costs(shape, seq_len), mha.model_costs(shape, seq_len, causal=True)
    pairs, kept = mha.query_key_pairs(seq_len), mha.query_key_pairs(seq_len, causal=True)
    beyond = (f" {shape.name} was built for {shape.context:,} tokens: the count goes on, the model was not "
              "trained to read that far." if mha.beyond_context(shape, seq_len) else "")
    return [["p", {"class": "cost-share"},
             f"One layer of {shape.name} (d = {every.width:,}; {every.heads} query heads, {every.kv_heads} "
             f"key/value heads, width {every.head_width}) over {_plural(seq_len, 'token')}: the ", _kept("n × n"),
             " part (scores and weighted sums) is ", _share(every), f" of its {every.multiply_adds:,} multiply-adds, ",
             _share(causal), " with a causal mask that skips the masked pairs."],
            ["p", {"class": "note cost-share-note"}, "Counted for every query-key pair, ", _kept(f"n × n = {pairs:,}"),
             " a head; a causal mask needs only the pairs at or before each query, ", _kept(f"n(n+1)/2 = {kept:,}"),
             f", {share_text(kept / pairs)} of them.{beyond}"]]


def _share(costs):
    share = mha.quadratic_share(costs)
    return ["strong", {"data-value": repr(share)}, share_text(share)]


def _recipe_prose():
    lesson = mha.attention_costs(len(mha.LESSON_TOKENS), len(mha.LESSON_TOKENS[0]), mha.LESSON_HEADS)
    return {
        "recipe-width": lambda: str(lesson.width),
        "recipe-heads": lambda: str(lesson.heads),
        "recipe-head-width": lambda: str(lesson.head_width),
        "cost-model": lambda: mha.COST_MODEL,
    }


FIGURES = {
    # section 1: why several heads
    "fig-blend": Figure(lambda s, v, b: [blend_figure()]),
    # section 2: the recipe (redrawn when the sizes change, or a token is added or removed)
    "fig-recipe-flow": Figure(lambda s, v, b: [flow_diagram(state_costs(s))], ("structure", "token-grid")),
    "fig-recipe-line": Figure(lambda s, v, b: [cost_line(state_costs(s))], ("structure", "token-grid")),
    # section 2: one layer of mha.COST_MODEL at the reader's sequence length (in the link, like the seed)
    "fig-cost-seq-len": Figure(lambda s, v, b: [seq_len_field(s["cost_seq_len"])], ("controls",)),
    "fig-cost-share": Figure(lambda s, v, b: cost_share(s["cost_seq_len"]), ("controls", "cost")),
}
PROSE = {**_blend_prose(), **_recipe_prose()}
