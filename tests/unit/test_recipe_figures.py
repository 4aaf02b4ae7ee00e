"""Sections 1 and 2's figures (figures/recipe.py): the blend picture, the data-flow diagram, the cost table.

References: softmax rows and weighted averages worked here with math.exp (not mha), and the counts
worked by hand in tests/unit/test_costs.py's comments, repeated below as literals.
"""

import math
import re
from pathlib import Path

import pytest

import mha
from figures import FIGURES, prose, recipe
from page import dom
from page import state as figure_state
from trees import class_list, find, nodes, text

# figures.prose() and run_data() read section 7's training run, which build.py trains and caches:
# these tests wait for the session's build (conftest.py) instead of training it a second time beside it.
pytestmark = pytest.mark.usefixtures("built_site")

# --- test data ---------------------------------------------------------------

# Section 1: the query [1, 0, 1, 0] against token 0 [6, 0, 1, 1], token 1 [1, 1, 6, 0], itself.
#   head 0 (slots 0-1, scale 1/sqrt 2): dot products 6, 1, 1
#   head 1 (slots 2-3):                 dot products 1, 6, 1
#   one head (slots 0-3, scale 1/2):    dot products 7, 7, 2: tokens 0 and 1 tie
# Head 0: e^(-5/sqrt 2) = 0.029143, so 1 / (1 + 2 x 0.029143) = 0.944924 on token 0, 0.027538 on each other;
#   its output, slot 0: 6 x 0.944924 + 0.027538 + 0.027538 = 5.7246; slot 1: token 1's 1 x 0.027538 = 0.0275.
#   Head 1 is head 0 mirrored: [5.7246, 0.0275] in slots 2-3, so side by side [5.7246, 0.0275, 5.7246, 0.0275].
# One head: e^(-2.5) = 0.082085, so 1 / (2 + 0.082085) = 0.480288 on tokens 0 and 1, 0.039424 on itself;
#   slot 0: 6 x 0.480288 + 0.480288 + 0.039424 = 3.4014; slot 1: 0.4803; slot 2: 3.4014; slot 3: 0.4803.
BLEND = [[6.0, 0.0, 1.0, 1.0], [1.0, 1.0, 6.0, 0.0], [1.0, 0.0, 1.0, 0.0]]
HEAD_0_DOTS, HEAD_1_DOTS, WIDE_DOTS = [6, 1, 1], [1, 6, 1], [7, 7, 2]
CONCAT_TEXT, WIDE_TEXT = "[5.7246, 0.0275, 5.7246, 0.0275]", "[3.4014, 0.4803, 3.4014, 0.4803]"
AND_TEXT = ("token 0 scores 6 in slots 0-1 and 1 in slots 2-3, so 7 in the wide head; token 1 scores 1 and 6, so 7; "
            "token 2 scores 1 and 1, so 2")
# An edit: token 0 slot 0 = -3, token 1 slot 3 = 2.5. Dot products with [1, 0, 1, 0]: token 0 -3 and 1, -2 in all
# four; token 1 1 and 6, 7; the query 1 and 1, 2. The largest size is still 6: the -3 bar hangs 28 x 3 / 6 = 14 down.
EDITED = [[-3.0, 0.0, 1.0, 1.0], [1.0, 1.0, 6.0, 2.5], [1.0, 0.0, 1.0, 0.0]]
EDITED_AND = ("token 0 scores -3 in slots 0-1 and 1 in slots 2-3, so -2 in the wide head; token 1 scores 1 and 6, "
              "so 7; token 2 scores 1 and 1, so 2")
SECTION = Path(__file__).resolve().parents[2] / "site" / "sections" / "why-heads.html"
MAX_PROSE_WORDS = 300  # issue 23: section 1's prose outside its figure panel

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

def blend_state(tokens=BLEND):
    return {**figure_state.default_state(), "blend": [list(row) for row in tokens]}


def built(element_id, state):
    children = FIGURES[element_id].build(state, None, None)
    for child in children:
        dom.check(child)
    return children


def table_values(tree, label):
    """{row name: [each cell's exact number, or None for an empty cell]} of a numbers table."""
    (table,) = find(tree, "table", aria_label=label)
    rows = find(find(table, "tbody")[0], "tr")
    return {text(find(row, "th")[0]): [float(td[1]["data-value"]) if "data-value" in td[1] else None
                                        for td in find(row, "td")] for row in rows}


def bars(svg):
    """[(x, y, height, exact value)] of the picture's bars, in drawing order: 3 values, then the two outputs."""
    return [(r[1]["x"], r[1]["y"], r[1]["height"], float(r[1]["data-value"])) for r in find(svg, "rect")]


def test_the_default_picture_prints_the_hand_worked_weights_outputs_and_scores():
    """Every number of the picture and its tables is a softmax or weighted average worked here, from the literals."""
    head_0 = softmax([x / math.sqrt(2) for x in HEAD_0_DOTS])
    head_1 = softmax([x / math.sqrt(2) for x in HEAD_1_DOTS])
    wide = softmax([x / 2 for x in WIDE_DOTS])
    state = blend_state()
    numbers = built("fig-blend-numbers", state)
    names = ["token 0", "token 1", "token 2 (query)"]
    weights = table_values(numbers, "section 1 weights")
    assert [weights[n] for n in names] == [pytest.approx([a, b, c], abs=1e-12) for a, b, c in zip(head_0, head_1, wide)]
    scores = table_values(numbers, "section 1 scores")
    assert [scores[n] for n in names] == [[6, 1, 7], [1, 6, 7], [1, 1, 2]]
    head_0_out = average(head_0, [t[0:2] for t in BLEND])
    head_1_out = average(head_1, [t[2:4] for t in BLEND])
    outputs = table_values(numbers, "section 1 outputs")
    assert outputs["head 0 output"][:2] == pytest.approx(head_0_out, abs=1e-12) and outputs["head 0 output"][2:] == [None] * 2
    assert outputs["head 1 output"][2:] == pytest.approx(head_1_out, abs=1e-12) and outputs["head 1 output"][:2] == [None] * 2
    assert outputs["two heads, side by side"] == pytest.approx(head_0_out + head_1_out, abs=1e-12)
    assert outputs["one wide head"] == pytest.approx(average(wide, BLEND), abs=1e-12)

    svg, *notes = built("fig-blend", state)
    drawn = bars(svg)
    assert [v for *_, v in drawn] == pytest.approx([*BLEND[0], *BLEND[1], *BLEND[2], *head_0_out, *head_1_out,
                                                    *average(wide, BLEND)], abs=1e-12)
    assert all(h == round(28 * abs(v) / 6, 2) for _, _, h, v in drawn)  # one scale: the largest size, 6, is 28 tall
    lines = [float(line[1]["stroke-opacity"]) for line in find(svg, "line") if "blend-weight" in class_list(line)]
    assert lines == pytest.approx([*head_0, *head_1, *wide], abs=1e-12)
    said = " ".join(text(note) for note in notes)
    assert f"One wide head: {WIDE_TEXT}, a blend no token holds" in said
    assert f"Two heads, side by side: {CONCAT_TEXT}, also a vector no token holds: 2 narrow lookups, each bringing " \
           "back a 2-wide summary of a different token: head 0's weighted toward token 0 (0.9449), head 1's toward " \
           "token 1 (0.9449)." in said
    assert "weighted toward tokens 0 and 1 (0.4803 each)" in said
    assert AND_TEXT in said and said.count(".") >= 3


def test_an_edit_redraws_the_picture_and_the_and_sentence_from_the_new_numbers():
    state = figure_state.with_blend_text(figure_state.with_blend_text(blend_state(), 0, 0, "-3"), 1, 3, "2.5")
    assert state["blend"] == EDITED
    svg, *notes = built("fig-blend", state)
    base = next(line[1]["y1"] for line in find(svg, "line") if "blend-base" in class_list(line))  # token 0's
    token_0 = bars(svg)[:4]
    assert [(y, h) for _, y, h, _ in token_0] == [(base, 14.0), (base, 0.0), (base - 4.67, 4.67), (base - 4.67, 4.67)]
    # -3 hangs below its baseline, half as long as the largest size, 6 (28 tall); 1 stands 28 / 6 = 4.67 above it
    assert EDITED_AND in text(notes[-1])
    fields = built("fig-blend-tokens", state)
    assert [i[1]["value"] for i in find(fields, "input")] == ["-3", "0", "1", "1", "1", "1", "6", "2.5", "1", "0", "1", "0"]


@pytest.mark.parametrize("tokens, said, unsaid", [
    # both heads favour token 0: dot products 6, 1, 1 in each head's slots
    ([[6.0, 0.0, 6.0, 0.0], [1.0, 1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0]],
     "2-wide summary: head 0's weighted toward token 0 (0.9449), head 1's toward token 0 (0.9449).",
     "a different token"),
    # three equal tokens: every weight 1/3, and every vector is the tokens' own
    ([[1.0, 1.0, 1.0, 1.0]] * 3, "the same numbers as token 0's value", "no token holds"),
])
def test_the_sentences_stay_true_when_the_heads_agree_or_a_token_holds_the_vector(tokens, said, unsaid):
    svg, *notes = built("fig-blend", blend_state(tokens))
    words = " ".join(text(note) for note in notes)
    assert said in words and unsaid not in words


def test_section_1s_fields_are_named_and_kept_apart_from_section_3s_grid():
    """Twelve fields, each with the id main.py's INPUTS knows (boot.js keeps a field changed while Python loads by
    its id) and a name unlike section 3's 'token T slot S'; the table is not a .token-grid, which is read otherwise."""
    (table,) = built("fig-blend-tokens", blend_state())
    inputs = find(table, "input")
    assert [(i[1]["id"], i[1]["aria-label"], i[1]["value"]) for i in inputs] == [
        (f"blend-{t}-{s}", f"section 1 token {t} slot {s}", dom.number_text(x))
        for t, row in enumerate(BLEND) for s, x in enumerate(row)]
    assert list(recipe.BLEND_FIELDS.items()) == [(f"blend-{t}-{s}", (t, s)) for t in range(3) for s in range(4)]
    assert "token-grid" not in class_list(table) and all(i[1]["aria-describedby"] == "blend-error" for i in inputs)
    # the fields are drawn again only by section 1's reset, never under a reader's typing
    assert FIGURES["fig-blend-tokens"].redraw == ("blend-grid",)
    assert set(FIGURES["fig-blend"].redraw) == set(FIGURES["fig-blend-numbers"].redraw) == {"blend", "blend-grid"}


def test_section_1s_prose_has_no_build_time_numbers_and_stays_short():
    """The figure is live, so no sentence beside it prints a build-time number; its prose (<p> and <li> outside
    the figure panel) is at most MAX_PROSE_WORDS words."""
    source = SECTION.read_text()
    assert "<!--value:" not in source
    assert all(f"<!--render:{fid}-->" in source for fid in ("fig-blend-tokens", "fig-blend", "fig-blend-numbers"))
    outside = re.sub(r'<div class="figure-panel.*?</details>\s*</div>', "", source, flags=re.S)
    assert "fig-blend" not in outside
    words = sum(len(re.sub(r"<[^>]+>", " ", body).split())
                for _, body in re.findall(r"<(p|li)\b[^>]*>(.*?)</\1>", outside, flags=re.S))
    assert 150 < words <= MAX_PROSE_WORDS


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
