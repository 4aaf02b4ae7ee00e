"""Sections 1 and 2's figures (figures/recipe.py): the blend tables, the data-flow diagram, the cost table.

References: softmax rows and weighted averages worked here with math.exp (not mha), and the counts
worked by hand in tests/unit/test_costs.py's comments, repeated below as literals.
"""

import math

import pytest

import mha
from figures import FIGURES, prose, recipe
from page import dom
from page import state as figure_state
from trees import find, nodes, text

# figures.prose() and run_data() read section 8's training run, which build.py trains and caches:
# these tests wait for the session's build (conftest.py) instead of training it a second time beside it.
pytestmark = pytest.mark.usefixtures("built_site")

# --- test data ---------------------------------------------------------------

# Section 1: the query [1, 0, 1, 0] against token 0 [6, 0, 1, 1], token 1 [1, 1, 6, 0], itself.
#   head 0 (slots 0-1, scale 1/sqrt 2): dot products 6, 1, 1
#   head 1 (slots 2-3):                 dot products 1, 6, 1
#   one head (slots 0-3, scale 1/2):    dot products 7, 7, 2: tokens 0 and 1 tie
HEAD_0_DOTS, HEAD_1_DOTS, WIDE_DOTS = [6, 1, 1], [1, 6, 1], [7, 7, 2]

# Section 2's cost table in the default state (2 tokens, width 4, 2 heads), by hand in test_costs.py;
# Llama-3-8B's layer on the same 2 tokens: projections 2 x 25,165,824 = 50,331,648; scores and
# weighted sums 32 heads x 4 pairs x 128 = 16,384 each; output 2 x 16,777,216 = 33,554,432;
# all four 50,331,648 + 2 x 16,384 + 33,554,432 = 83,918,848; softmax weights 32 x 4 = 128.
DEFAULT_COSTS = {
    "tokens n": ["2", "2", "2"], "width d": ["4", "4", "4096"], "query heads h": ["2", "1", "32"],
    "key/value heads": ["2", "1", "8"], "head width d/h": ["2", "4", "128"],
    "W_Q": ["16", "16", "16777216"], "W_K": ["16", "16", "4194304"], "W_V": ["16", "16", "4194304"],
    "W_O": ["16", "16", "16777216"],
    "projections x W_Q, W_K, W_V": ["96", "96", "50331648"], "scores q · k": ["16", "16", "16384"],
    "weighted sums of values": ["16", "16", "16384"], "output × W_O": ["32", "32", "33554432"],
    "weights (h × n × n)": ["8", "4", "128"],
}
DEFAULT_TOTALS = [["64", "64", "41943040"], ["160", "160", "83918848"]]  # parameters, multiply-adds

# (tokens, width, heads, kv_heads) -> the labels drawn, by hand: d/h and kv_heads x d/h.
FLOWS = [
    ((2, 4, 2, 2), {"tokens": "2 × 4", "keys": "2 × 4", "heads": ["2 × 2"] * 2, "weights": "2 × 2", "more": None}),
    ((5, 8, 4, 2), {"tokens": "5 × 8", "keys": "5 × 4", "heads": ["5 × 2"] * 4, "weights": "5 × 5", "more": None}),
    ((3, 64, 16, 16), {"tokens": "3 × 64", "keys": "3 × 64", "heads": ["3 × 4"] * 3, "weights": "3 × 3",
                       "more": "13 more"}),
    ((1, 8, 1, 1), {"tokens": "1 × 8", "keys": "1 × 8", "heads": ["1 × 8"], "weights": "1 × 1", "more": None}),
]


def softmax(scores):
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    return [e / sum(exps) for e in exps]


def average(weights, vectors):
    return [sum(w * v[s] for w, v in zip(weights, vectors)) for s in range(len(vectors[0]))]


def boxes(svg):
    """[(name, shape)] of the diagram's boxes and left-out heads, top to bottom, left to right."""
    names = [text(t) for t in find(svg, "text") if t[1].get("class") == "flow-name"]
    shapes = [text(t) for t in find(svg, "text") if t[1].get("class") == "flow-shape"]
    return list(zip(names, shapes))


def state_of(tokens, width, heads, kv_heads):
    return {**figure_state.default_state(), "tokens": [[0.5] * width for _ in range(tokens)],
            "heads": heads, "kv_heads": kv_heads, "projections": "random" if kv_heads < heads else "identity"}


def cost_rows(tree):
    """{row name: [cell data-value, ...]} of the cost table, and the two 'all four' rows in order."""
    (table,) = find(tree, "table", aria_label="attention costs")
    rows, totals = {}, []
    for row in find(table, "tr"):
        ths, tds = find(row, "th"), find(row, "td")
        if tds:
            values = [td[1]["data-value"] for td in tds]
            (totals.append(values) if text(ths[0]) == "all four" else rows.__setitem__(text(ths[0]), values))
    return rows, totals


# --- section 1: the blend --------------------------------------------------------

def test_each_head_returns_one_value_and_the_wide_head_blends_two():
    """The weights and outputs the figure prints are softmax and weighted averages worked here."""
    tokens = [list(row) for row in mha.BLEND_TOKENS]
    head_0 = softmax([s / math.sqrt(2) for s in HEAD_0_DOTS])
    head_1 = softmax([s / math.sqrt(2) for s in HEAD_1_DOTS])
    wide = softmax([s / 2 for s in WIDE_DOTS])
    figure = recipe.blend_figure()
    dom.check(figure)
    for label, weights, values in [("head 0 mix", head_0, [t[0:2] for t in tokens]),
                                   ("head 1 mix", head_1, [t[2:4] for t in tokens]),
                                   ("one head mix", wide, tokens)]:
        (table,) = find(figure, "table", aria_label=label)
        rows = find(find(table, "tbody")[0], "tr")
        drawn_weights = [float(find(row, "td")[0][1]["data-value"]) for row in rows[:-1]]
        assert drawn_weights == pytest.approx(weights, abs=1e-12)
        assert [[float(td[1]["data-value"]) for td in find(row, "td")[1:]] for row in rows[:-1]] == values
        output = [float(td[1]["data-value"]) for td in find(rows[-1], "td")[1:]]
        assert output == pytest.approx(average(weights, values), abs=1e-12)
    # the story the prose tells: each head > 0.9 on one token, the wide head splits evenly between two
    assert head_0[0] > 0.9 and head_1[1] > 0.9
    assert wide[0] == pytest.approx(wide[1]) and wide[0] < 0.5
    blend = average(wide, tokens)
    assert all(min(a, b) < x < max(a, b) for x, a, b in zip(blend, tokens[0], tokens[1]))


def test_the_blend_prose_prints_the_figures_numbers():
    values = prose()
    result, wide = recipe.blend_results()
    assert values["blend-head-0-weight"] == f"{result.weights[0][2][0]:.4f}"
    assert values["blend-wide-weight-0"] == values["blend-wide-weight-1"] == f"{wide.weights[0][2][0]:.4f}"
    assert values["blend-wide-output"] == "[" + ", ".join(f"{x:.4f}" for x in wide.outputs[2]) + "]"
    assert values["blend-token-0"] == "[6, 0, 1, 1]" and values["blend-token-0-head-0"] == "[6, 0]"


# --- section 2: the data flow --------------------------------------------------------

@pytest.mark.parametrize("sizes, expected", FLOWS)
def test_the_diagram_labels_follow_tokens_width_heads_and_kv_heads(sizes, expected):
    tokens, width, heads, kv_heads = sizes
    state = state_of(*sizes)
    (svg,) = FIGURES["fig-recipe-flow"].build(state, figure_state.compute(state), None)
    dom.check(svg)
    drawn = boxes(svg)
    assert drawn[0] == ("tokens", expected["tokens"])
    assert drawn[1:4] == [("queries", expected["tokens"]), ("keys", expected["keys"]), ("values", expected["keys"])]
    heads_row = [shape for name, shape in drawn if name.startswith("head ")]
    assert heads_row == expected["heads"]
    assert [shape for name, shape in drawn if name == "weights"] == [expected["weights"]] * len(expected["heads"])
    assert drawn[-2:] == [("concatenated", expected["tokens"]), ("output", expected["tokens"])]
    assert (expected["more"] in dict(drawn)) if expected["more"] else not any("more" in n for n, _ in drawn)
    desc = text(find(svg, "desc")[0])
    if heads > 1:
        assert f"split into {heads} heads of width {width // heads}" in desc and "1 key/value heads" not in desc
    else:  # no "split in 1", no "1 heads"
        assert f"stay one head of width {width}" in desc and "1 heads" not in desc and "split" not in desc
    assert f"W_O ({width} × {width})" in desc
    assert svg[1]["aria-labelledby"] == "recipe-flow-title recipe-flow-desc"


def test_the_diagram_and_counts_redraw_on_sizes_and_on_added_tokens():
    """A token added or removed fires 'token-grid' (main.on_add), the pickers 'structure'."""
    for element_id in ("fig-recipe-flow", "fig-recipe-costs"):
        assert {"structure", "token-grid"} <= set(FIGURES[element_id].redraw)
    state = figure_state.with_token_added(figure_state.default_state(), "tokens")
    (svg,) = FIGURES["fig-recipe-flow"].build(state, figure_state.compute(state), None)
    assert boxes(svg)[0] == ("tokens", "3 × 4")


# --- section 2: the counts ------------------------------------------------------------

def test_the_cost_table_prints_the_hand_worked_counts():
    state = figure_state.default_state()
    tree = ["div", {}, *FIGURES["fig-recipe-costs"].build(state, figure_state.compute(state), None)]
    dom.check(tree)
    rows, totals = cost_rows(tree)
    assert rows == DEFAULT_COSTS
    assert totals == DEFAULT_TOTALS
    (table,) = find(tree, "table", aria_label="attention costs")
    assert [text(th) for th in find(find(table, "thead")[0], "th")] == \
        ["count", "your 2 heads", "one head of width 4", "Llama-3-8B, one layer"]
    assert "41,943,040" in [text(td) for td in find(table, "td")]


@pytest.mark.parametrize("sizes, words", [
    ((2, 4, 2, 2), "2 heads of width 2: the same cost as one head of width 4"),
    ((3, 8, 4, 2), "4 heads sharing 2 key/value heads: cheaper than one head of width 8"),
    ((2, 8, 1, 1), "With one head the first two columns are the same layer"),
])
def test_the_summary_says_what_the_counts_show(sizes, words):
    state = state_of(*sizes)
    tree = FIGURES["fig-recipe-costs"].build(state, figure_state.compute(state), None)
    assert words in text(tree[-1])


def test_the_summary_numbers_with_shared_heads_are_the_hand_worked_ones():
    """3 tokens, width 8, 4 heads sharing 2 (test_costs.py's GROUPED): 192 parameters, 720 multiply-adds,
    against one head of width 8: 4 x 64 = 256 and 3 x 8 x 8 x 4 + 2 x 9 x 8 = 768 + 144 = 912."""
    tree = FIGURES["fig-recipe-costs"].build(state_of(3, 8, 4, 2), None, None)
    summary = text(tree[-1])
    assert "192 against 256 parameters and 720 against 912 multiply-adds" in summary
    assert "36 weights against 9" in summary


def test_the_section_2_prose_prints_llama_3_8b_from_mha():
    values = prose()
    assert (values["cost-model"], values["cost-model-width"], values["cost-model-heads"],
            values["cost-model-kv-heads"], values["cost-model-head-width"]) == ("Llama-3-8B", "4,096", "32", "8", "128")
    assert (values["cost-model-parameters"], values["cost-model-w-q"], values["cost-model-w-k"]) == \
        ("41,943,040", "16,777,216", "4,194,304")
    assert (values["recipe-width"], values["recipe-heads"], values["recipe-head-width"]) == ("4", "2", "2")
