"""Sections 1 and 2 as figures: why one head blurs, and what the recipe does to the shapes and the cost.

- fig-blend-tokens, fig-blend, fig-blend-numbers (section 1, live): three tokens the reader edits
  (state["blend"], from mha.BLEND_TOKENS), read by the last one under a causal mask. Their values
  as bars; lines weighted by each head's softmax; the two heads' outputs side by side beside the one
  wide head's blend; sentences with the numbers now (each key's score per slice and their sum: the
  AND); and every number as tables, in a <details>.
- fig-recipe-flow (section 2, live): the data flow n x d -> h x (n x d/h) -> attend -> n x d -> W_O,
  an SVG whose labels follow the reader's tokens, width, heads and key/value heads.
- fig-recipe-line (section 2, live): one sentence from mha.attention_costs: the reader's heads cost what
  one head of the same width costs (fewer with shared key/value heads); only the weight tables multiply.
- fig-cost-seq-len, fig-cost-share (section 2, live): a sequence length, and how much of one layer of
  mha.COST_MODEL's multiply-adds the n x n part takes there (mha.quadratic_share), causal or not.

Every number comes from mha; this module only arranges them.
"""

import mha
from figures.heads import token_grid_head
from figures.registry import Figure
from page.dom import (band_class, body_row, classes, counted, fixed, header_row, number_cell, number_text, short,
                      slot_range, table, vector_text, weight_class)
from page.state import model_shape

# --- section 1: one head blends what it finds, two heads look up two things ----------------

QUERY = len(mha.BLEND_TOKENS) - 1  # the last token asks; the causal mask lets it see every token
FIELD_LABEL = "section 1 token {} slot {}"  # each field's accessible name (section 3's grid says "token T slot S")

# The picture, in viewBox units: BLEND_W wide, scaled to the column (a 375 px phone too).
BLEND_W = 320
BAR_H = 28                              # the tallest bar, above its baseline (or below, for a negative slot)
TOKEN_X, TOKEN_BAR, TOKEN_GAP = (8, 116, 224), 16, 8  # the three values: left edges, bar width, gap
OUT_X, OUT_BAR, OUT_GAP = (10, 188), 22, 8            # the concatenation, the wide head's output
LINES_H = 40                            # the weight lines' drop from the values to the outputs


def _token_name(t):
    return f"token {t} (query)" if t == QUERY else f"token {t}"


def blend_input(x, t, s):
    """One of section 1's fields: <input id='blend-T-S'>, named FIELD_LABEL, its error in #blend-error."""
    return ["input", {"type": "text", "id": f"blend-{t}-{s}", "inputmode": "decimal", "size": "4",
                      "autocomplete": "off", "spellcheck": "false", "aria-label": FIELD_LABEL.format(t, s),
                      "aria-describedby": "blend-error", "data-token": str(t), "data-slot": str(s),
                      "value": number_text(x)}]


def blend_fields(tokens):
    """fig-blend-tokens: the three tokens as fields, each slot headed by the head that reads it."""
    rows = [body_row(_token_name(t), [["td", {}, blend_input(x, t, s)] for s, x in enumerate(row)])
            for t, row in enumerate(tokens)]
    return ["table", {"aria-label": "section 1's tokens", "class": "figure-table blend-grid"},
            ["caption", {}, f"three tokens; token {QUERY} is the query"],
            ["thead", {}, token_grid_head(len(tokens[0]), mha.BLEND_HEADS)], ["tbody", {}, *rows]]


def _slot_bands(blend):
    """The colour class of each slot: the head that reads it."""
    return [band_class(h) for h, (start, stop) in enumerate(blend.heads.head_slots) for _ in range(start, stop)]


def _bars(x, baseline, values, bands, bar, gap, top):
    """A vector as bars on a baseline, one per slot: up for a positive number, down for a negative one.

    top: the largest size among all the picture's numbers, drawn BAR_H tall (so every vector shares one scale).
    """
    rects = []
    for s, (v, band) in enumerate(zip(values, bands)):
        height = round(BAR_H * abs(v) / top, 2)
        rects.append(["rect", {"class": f"blend-bar {band}", "x": x + s * (bar + gap),
                               "y": round(baseline - height, 2) if v > 0 else baseline, "width": bar,
                               "height": height, "data-value": repr(float(v))}])
    right = x + len(values) * (bar + gap) - gap
    return [*rects, ["line", {"class": "blend-base", "x1": x - 3, "y1": baseline, "x2": right + 3, "y2": baseline}]]


def _centre(x, slots, bar, gap):
    return x + (slots * (bar + gap) - gap) / 2


def _label(x, y, words, *extra):
    return ["text", {"x": x, "y": y, "text-anchor": "middle", **classes("blend-label", *extra)}, words]


def blend_svg(blend):
    """The picture: the three value vectors as bars, weight lines to what each head returns, the
    concatenation of the two heads beside the one wide head's output. aria-hidden: the text under it
    says every number."""
    result, wide = blend.heads, blend.wide
    bands = _slot_bands(blend)
    values = [x for row in blend.tokens for x in row]
    top = max(map(abs, values)) or 1.0  # outputs are weighted averages of the values: never past it
    below = BAR_H if min(values) < 0 else 0  # room under the baselines only when a slot is negative
    token_base = 16 + BAR_H
    line_top = token_base + below + 6
    line_bottom = line_top + LINES_H
    out_base = line_bottom + 18 + BAR_H
    names_y = out_base + below + 16
    width, hw = len(blend.tokens[0]), result.head_width
    children = []
    for t, (x, row) in enumerate(zip(TOKEN_X, blend.tokens)):
        children.append(_label(_centre(x, width, TOKEN_BAR, TOKEN_GAP), 12, _token_name(t)))
        children += _bars(x, token_base, row, bands, TOKEN_BAR, TOKEN_GAP, top)
    # the weight lines: each head's from every token to its slots of the concatenation, the wide head's to its output
    concat_x, wide_x = OUT_X
    ends = [(_centre(concat_x + h * hw * (OUT_BAR + OUT_GAP), hw, OUT_BAR, OUT_GAP), weights[QUERY], band_class(h),
             f"head {h}") for h, weights in enumerate(result.weights)]
    ends.append((_centre(wide_x, width, OUT_BAR, OUT_GAP), wide.weights[0][QUERY], "wide", "one wide head"))
    for end, weights, band, name in ends:
        for x, w in zip(TOKEN_X, weights):
            children.append(["line", {"class": f"blend-weight {band}", "x1": _centre(x, width, TOKEN_BAR, TOKEN_GAP),
                                      "y1": line_top, "x2": round(end, 2), "y2": line_bottom,
                                      "stroke-opacity": repr(w)}])
        children.append(_label(round(end, 2), line_bottom + 12, name))
    children += _bars(concat_x, out_base, result.concat[QUERY], bands, OUT_BAR, OUT_GAP, top)
    children += _bars(wide_x, out_base, wide.outputs[QUERY], ["wide"] * width, OUT_BAR, OUT_GAP, top)
    children.append(_label(_centre(concat_x, width, OUT_BAR, OUT_GAP), names_y, "side by side", "name"))
    children.append(_label(_centre(wide_x, width, OUT_BAR, OUT_GAP), names_y, "a blend", "name"))
    return ["svg", {"class": "blend-picture", "viewBox": f"0 0 {BLEND_W} {names_y + 4}", "aria-hidden": "true",
                    "focusable": "false"}, *children]


def two(x):
    """A number as section 1's sentences print it: 2 decimals (its tables keep 4)."""
    return f"{x:.2f}"


def _favourite(weights):
    """'0.94 to token 0', or '0.48 each to tokens 0 and 1': the keys whose printed weight is the largest."""
    top = two(max(weights))
    best = [str(t) for t, w in enumerate(weights) if two(w) == top]
    if len(best) == 1:
        return f"{top} to token {best[0]}"
    return f"{top} each to tokens {', '.join(best[:-1])} and {best[-1]}"


def _lookup(weights, output, tokens, start, stop):
    """What one head returns, in one claim: mostly one token's own slots (a weight over half), or an average."""
    top = max(range(len(weights)), key=weights.__getitem__)
    if weights[top] > 0.5:
        own = vector_text(tokens[top][start:stop], short)
        return f"is mostly token {top}'s own {own} (weight {two(weights[top])})."
    return f"is an average: no token gets more than half its weight ({_favourite(weights)})."


def wide_note(blend):
    """What the one wide head brings back, said with the numbers now."""
    width = len(blend.tokens[0])
    output = blend.wide.outputs[QUERY]
    return ["p", {"class": "blend-note wide-note"}, ["strong", {}, f"One wide head: {vector_text(output, two)}"],
            f" {_lookup(blend.wide.weights[0][QUERY], output, blend.tokens, 0, width)}"]


def concat_note(blend):
    """What each of the two heads brings back, side by side, said with the numbers now: one sentence a head."""
    result = blend.heads
    said = [["strong", {}, "Two heads."]]
    for h, ((start, stop), weights, output) in enumerate(zip(result.head_slots, result.weights, result.head_outputs)):
        claim = _lookup(weights[QUERY], output[QUERY], blend.tokens, start, stop)
        said.append(f" Head {h}'s part, {vector_text(output[QUERY], two)}, {claim}")
    return ["p", {"class": "blend-note concat-note"}, *said]


def and_sentence(blend):
    """Each key's score in each head's slots and their sum, the wide head's score: one sentence."""
    slots = " + ".join(slot_range(*pair) for pair in blend.heads.head_slots)
    keys = [f"token {t}: {' + '.join(short(x) for x in parts)} = {short(total)}"
            for t, (parts, total) in enumerate(zip(blend.parts, blend.totals))]
    return ["p", {"class": "blend-note and-note"},
            f"Scores (q · k), {slots} = the wide head's: {'; '.join(keys)}."]


def blend_picture(blend):
    """fig-blend: the picture, then what it shows in words, with the numbers now."""
    return [blend_svg(blend), wide_note(blend), concat_note(blend), and_sentence(blend)]


def blend_numbers(blend):
    """fig-blend-numbers (in a <details>): the scores, the weights and the vectors the picture draws, as tables."""
    result, wide = blend.heads, blend.wide
    slots = [slot_range(*pair) for pair in result.head_slots]
    heads = len(result.weights)
    scores = table("section 1 scores", f"q · k with token {QUERY}, the query",
                   header_row("key", [*slots, slot_range(0, result.width)]),
                   [body_row(_token_name(t), [number_cell(x) for x in [*parts, total]])
                    for t, (parts, total) in enumerate(zip(blend.parts, blend.totals))], "numbers")
    columns = [*(weights[QUERY] for weights in result.weights), wide.weights[0][QUERY]]
    weights = table("section 1 weights", f"the weight token {QUERY} gives each token",
                    header_row("key", [*(f"head {h}" for h in range(heads)), "one wide head"],
                               lambda i: classes(band_class(i) if i < heads else "")),
                    [body_row(_token_name(t), [number_cell(col[t], weight_class(col[t])) for col in columns])
                     for t in range(len(blend.tokens))], "weights")
    width, hw = result.width, result.head_width
    rows = [*((f"head {h} output", [None] * (h * hw) + out[QUERY] + [None] * (width - (h + 1) * hw))
              for h, out in enumerate(result.head_outputs)),
            ("two heads, side by side", result.concat[QUERY]), ("one wide head", wide.outputs[QUERY])]
    vectors = table("section 1 outputs", f"what token {QUERY} gets back, slot by slot",
                    header_row("vector", [f"slot {s}" for s in range(width)]),
                    [body_row(name, [["td", {}, ""] if x is None else number_cell(x) for x in row])
                     for name, row in rows], "numbers")
    return [["div", {"class": "blend-numbers-wrap", "tabindex": "0", "role": "region",
                     "aria-label": "the numbers, scrollable"}, scores, weights, vectors]]


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
    kv = f"{counted(g, 'key/value head')}{shared}"
    split = (f"the queries are split into {h} heads of width {hw}, {_size(n, hw)} each; every head turns"
             if h > 1 else f"the queries stay one head of width {hw}, {_size(n, hw)}; it turns")
    outputs = f"the {h} outputs are concatenated into {_size(n, d)} and" if h > 1 else "the output is"
    tokens = f"{counted(n, 'token')} of width {d} ({_size(n, d)}) {'is' if n == 1 else 'are'}"
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
    height = y - GAP + 2  # room for the last box's bottom border
    return ["svg", {"viewBox": f"0 0 {VIEW_W} {height}", "class": "flow", "role": "img",
                    "aria-labelledby": "recipe-flow-title recipe-flow-desc"},
            ["title", {"id": "recipe-flow-title"}, "The recipe's shapes"],
            ["desc", {"id": "recipe-flow-desc"}, flow_description(costs)],
            *children]


# --- section 2: what it costs ---------------------------------------------------------------

def _kept(size):
    """A size such as '2 × 2' in a span the line does not break inside (on a phone it wraps elsewhere)."""
    return ["span", {"class": "size"}, size]


def cost_line(costs):
    """The reader's heads (mha.AttentionCosts) against one head of the same width, in one sentence: the
    parameters and multiply-adds, whether they are the same or fewer (smaller W_K and W_V), and the weight
    tables, h of n x n. The comparison is made on the counts, not assumed."""
    n, d, h, g = costs.tokens, costs.width, costs.heads, costs.kv_heads
    one = mha.attention_costs(n, d, 1)
    counts = f"{costs.parameters:,} parameters and {costs.multiply_adds:,} multiply-adds for {counted(n, 'token')}"
    tables = [f"{counted(h, 'weight table')} of ", _kept(_size(n, n))]
    if h == 1:
        return ["p", {"class": "cost-line"}, f"At width {d}, 1 head: {counts}. This is the one wide head, with ",
                *tables, "; pick more heads above to compare."]
    sizes = f"At width {d}, {h} heads" + (f" sharing {counted(g, 'key/value head')}" if g < h else "")
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
    (scores and weighted sums) takes, counted over every query-key pair and under a causal mask (which skips
    the pairs after each query), and a warning past the model's context: children (one <p>)."""
    shape = model_shape(mha.COST_MODEL)
    every, causal = mha.model_costs(shape, seq_len), mha.model_costs(shape, seq_len, causal=True)
    beyond = (f" {shape.name} was built for {shape.context:,} tokens: the count goes on, the model was not "
              "trained to read that far." if mha.beyond_context(shape, seq_len) else "")
    return [["p", {"class": "cost-share"},
             f"In one attention layer of {shape.name} (MLP aside) over {counted(seq_len, 'token')}, the ",
             _kept("n × n"), " part (scores and weighted sums) is ", _share(every),
             f" of {every.multiply_adds:,} multiply-adds, ", _share(causal),
             f" under a causal mask.{beyond}"]]


def _share(costs):
    share = mha.quadratic_share(costs)
    return ["strong", {"data-value": repr(share)}, share_text(share)]


FIGURES = {
    # section 1: why several heads (its own three tokens: "blend-grid" after its reset, "blend" after an edit)
    "fig-blend-tokens": Figure(lambda s, v, b: [blend_fields(s["blend"])], ("blend-grid",)),
    "fig-blend": Figure(lambda s, v, b: blend_picture(v.blend), ("blend", "blend-grid")),
    "fig-blend-numbers": Figure(lambda s, v, b: blend_numbers(v.blend), ("blend", "blend-grid")),
    # section 2: the recipe (redrawn when the sizes change, or a token is added or removed)
    "fig-recipe-flow": Figure(lambda s, v, b: [flow_diagram(state_costs(s))], ("structure", "token-grid")),
    "fig-recipe-line": Figure(lambda s, v, b: [cost_line(state_costs(s))], ("structure", "token-grid")),
    # section 2: one layer of mha.COST_MODEL at the reader's sequence length (in the link, like the seed)
    "fig-cost-seq-len": Figure(lambda s, v, b: [seq_len_field(s["cost_seq_len"])], ("controls",)),
    "fig-cost-share": Figure(lambda s, v, b: cost_share(s["cost_seq_len"]), ("controls", "cost")),
}
PROSE = {}  # section 2's numbers are in its figures
