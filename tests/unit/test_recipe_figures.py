"""Sections 1 and 2's figures (figures/recipe.py): the blend picture, the data-flow diagram, the cost line
and the sequence-length share.

References: softmax rows and weighted averages worked here with math.exp (not mha), and the counts
worked by hand below (and in tests/unit/test_costs.py's comments), as literals.
"""

import math
import re
from pathlib import Path

import pytest

import mha
from conftest import hand_costs
from figures import FIGURES, prose, recipe
from figures.heads import WIDTHS
from page import dom
from page import state as figure_state
from trees import class_list, find, nodes, text

# figures.prose() and run_data() read section 8's training run, which build.py trains and caches:
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
AND_TEXT = ("Scores (q · k), slots 0-1 + slots 2-3 = the wide head's: token 0: 6 + 1 = 7; token 1: 1 + 6 = 7; "
            "token 2: 1 + 1 = 2.")
# An edit: token 0 slot 0 = -3, token 1 slot 3 = 2.5. Dot products with [1, 0, 1, 0]: token 0 -3 and 1, -2 in all
# four; token 1 1 and 6, 7; the query 1 and 1, 2. The largest size is still 6: the -3 bar hangs 28 x 3 / 6 = 14 down.
EDITED = [[-3.0, 0.0, 1.0, 1.0], [1.0, 1.0, 6.0, 2.5], [1.0, 0.0, 1.0, 0.0]]
EDITED_AND = "token 0: -3 + 1 = -2; token 1: 1 + 6 = 7; token 2: 1 + 1 = 2."
SECTION = Path(__file__).resolve().parents[2] / "site" / "sections" / "why-heads.html"
MAX_PROSE_WORDS = 200  # issues 23 and 46: section 1's prose outside its figure panel (about 270 before 46)

# Section 2's cost line, (tokens, width, heads, kv_heads) -> the sentence, worked by hand:
# - 2 tokens, width 4: W_Q .. W_O 4 x 4 = 16 each, 64; multiply-adds 3 x 2 x 4 x 4 = 96 projections,
#   2 x 4 x 4 = 32 output, scores and weighted sums heads x 4 pairs x 4 / heads = 16 each: 160 at any head count.
# - 2 heads sharing 1 key/value head (width 2): W_K, W_V 4 x 2 = 8 each, 16 + 8 + 8 + 16 = 48 parameters;
#   projections 32 + 2 x (2 x 4 x 2) = 64, + 16 + 16 + 32 = 128 multiply-adds.
# - 3 tokens, width 8: 4 x 64 = 256 parameters; 3 x 3 x 8 x 8 = 576 + 2 x 9 x 8 = 144 + 3 x 8 x 8 = 192 -> 912.
#   4 heads sharing 2 (width 2, kv width 4): W_K, W_V 8 x 4 = 32: 192 parameters; 192 + 2 x 96 + 144 + 192 = 720.
#   sharing 1 (kv width 2): W_K, W_V 8 x 2 = 16: 160 parameters; 192 + 2 x 48 + 144 + 192 = 624.
LINES = [
    ((2, 4, 1, 1), "At width 4, 1 head: 64 parameters and 160 multiply-adds for 2 tokens. This is the one wide "
                   "head, with 1 weight table of 2 × 2; pick more heads above to compare."),
    ((2, 4, 2, 2), "At width 4, 2 heads: 64 parameters and 160 multiply-adds for 2 tokens, the same as one head "
                   "of width 4; 2 weight tables of 2 × 2 instead of 1."),
    ((2, 4, 2, 1), "At width 4, 2 heads sharing 1 key/value head: 48 parameters and 128 multiply-adds for 2 "
                   "tokens, fewer than one head of width 4 (64 and 160), since W_K and W_V are 4 × 2 instead of "
                   "4 × 4; 2 weight tables of 2 × 2 instead of 1."),
    ((3, 8, 4, 4), "At width 8, 4 heads: 256 parameters and 912 multiply-adds for 3 tokens, the same as one head "
                   "of width 8; 4 weight tables of 3 × 3 instead of 1."),
    ((3, 8, 4, 2), "At width 8, 4 heads sharing 2 key/value heads: 192 parameters and 720 multiply-adds for 3 "
                   "tokens, fewer than one head of width 8 (256 and 912), since W_K and W_V are 8 × 4 instead of "
                   "8 × 8; 4 weight tables of 3 × 3 instead of 1."),
    ((3, 8, 4, 1), "At width 8, 4 heads sharing 1 key/value head: 160 parameters and 624 multiply-adds for 3 "
                   "tokens, fewer than one head of width 8 (256 and 912), since W_K and W_V are 8 × 2 instead of "
                   "8 × 8; 4 weight tables of 3 × 3 instead of 1."),
    ((1, 4, 2, 2), "At width 4, 2 heads: 64 parameters and 72 multiply-adds for 1 token, the same as one head "
                   "of width 4; 2 weight tables of 1 × 1 instead of 1."),  # 3 x 1 x 4 x 4 = 48, + 2 x 1 x 2 x 2 + 16
]

# Section 2's share, one layer of Llama-3-8B over n tokens (tests/unit/test_costs.py works the fractions):
#   the projections and output cost n x 41,943,040; scores and weighted sums 8,192 x pairs.
#   n = 2: 4 pairs, 32,768 of 83,918,848 = 1/2561 = 0.039%; causal 3 pairs, 24,576 of 83,910,656 = 0.029%.
#   n = 8192: 67,108,864 pairs, 8/13 = 61.5% of 893,353,197,568; causal 33,558,528 pairs (half of
#   67,108,864 plus 4,096), 8193/18433 = 44.4%.
#   n = 1: one pair, masked or not: 8,192 of 41,951,232 = 0.0195%.
SHARES = [  # (n, the shares printed: every pair, causal; the multiply-adds)
    (2, "0.04%", "0.03%", "83,918,848"),
    (8192, "62%", "44%", "893,353,197,568"),
    (1, "0.02%", "0.02%", "41,951,232"),
]

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


# --- section 1: the blend --------------------------------------------------------

def blend_state(tokens=BLEND):
    return {**figure_state.default_state(), "blend": [list(row) for row in tokens]}


def built(element_id, state):
    children = FIGURES[element_id].build(state, figure_state.compute(state), None)
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
    # issue 28: the wide head returns an average (3.40 between 6 and 1); each narrow head, mostly one token's own half
    assert ("One wide head: [3.40, 0.48, 3.40, 0.48] is an average: no token gets more than half its weight "
            "(0.48 each to tokens 0 and 1).") in said
    assert ("Two heads. Head 0's part, [5.72, 0.03], is mostly token 0's own [6, 0] (weight 0.94). "
            "Head 1's part, [5.72, 0.03], is mostly token 1's own [6, 0] (weight 0.94).") in said
    assert f"{head_0_out[0]:.2f}" == "5.72" and f"{average(wide, BLEND)[0]:.2f}" == "3.40"
    assert AND_TEXT in said and said.count(".") >= 3


def test_an_edit_redraws_the_picture_and_the_and_sentence_from_the_new_numbers():
    state = figure_state.with_number(figure_state.with_number(blend_state(), "blend", 0, 0, -3.0), "blend", 1, 3, 2.5)
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
    # both heads favour token 0: dot products 6, 1, 1 in each head's slots; the wide head's 12, 2, 2 give it 0.99
    ([[6.0, 0.0, 6.0, 0.0], [1.0, 1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0]],
     "Head 1's part, [5.72, 0.00], is mostly token 0's own [6, 0] (weight 0.94).", "an average"),
    # three equal tokens: every weight 1/3, so no head gives any token more than half
    ([[1.0, 1.0, 1.0, 1.0]] * 3, "no token gets more than half its weight (0.33 each to tokens 0, 1 and 2)",
     "mostly"),
])
def test_the_sentences_stay_true_when_the_heads_agree_or_a_token_holds_the_vector(tokens, said, unsaid):
    svg, *notes = built("fig-blend", blend_state(tokens))
    words = " ".join(text(note) for note in notes)
    assert said in words and unsaid not in words


def test_section_1s_fields_are_named_and_kept_apart_from_section_3s_grid():
    """Twelve fields, each with an id (boot.js keeps a field changed while Python loads by its id), the data-token and
    data-slot main.py reads as it reads section 3's grid, and a name unlike section 3's 'token T slot S'; the table is
    not a .token-grid, whose fields boot.js leaves to main.py's start."""
    (table,) = built("fig-blend-tokens", blend_state())
    inputs = find(table, "input")
    assert [(i[1]["id"], i[1]["aria-label"], i[1]["value"]) for i in inputs] == [
        (f"blend-{t}-{s}", f"section 1 token {t} slot {s}", dom.number_text(x))
        for t, row in enumerate(BLEND) for s, x in enumerate(row)]
    assert [(i[1]["data-token"], i[1]["data-slot"]) for i in inputs] == [
        (str(t), str(s)) for t in range(3) for s in range(4)]
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
    assert 100 < words <= MAX_PROSE_WORDS


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
    for element_id in ("fig-recipe-flow", "fig-recipe-line"):
        assert {"structure", "token-grid"} <= set(FIGURES[element_id].redraw)
    state = figure_state.with_token_added(figure_state.default_state(), "tokens")
    (svg,) = FIGURES["fig-recipe-flow"].build(state, figure_state.compute(state), None)
    assert boxes(svg)[0] == ("tokens", "3 × 4")


# --- section 2: the cost line ----------------------------------------------------------

@pytest.mark.parametrize("sizes, sentence", LINES)
def test_the_cost_line_prints_the_hand_worked_counts(sizes, sentence):
    state = state_of(*sizes)
    (line,) = FIGURES["fig-recipe-line"].build(state, figure_state.compute(state), None)
    dom.check(line)
    assert text(line) == sentence


def test_the_cost_line_at_the_default_state():
    state = figure_state.default_state()
    (line,) = FIGURES["fig-recipe-line"].build(state, figure_state.compute(state), None)
    assert text(line) == LINES[1][1]
    assert [text(strong) for strong in find(line, "strong")] == ["the same as one head of width 4"]


@pytest.mark.parametrize("width", WIDTHS)
def test_the_cost_line_tells_the_truth_at_every_setting_the_page_offers(width):
    """At every width, head count and key/value head count the pickers offer, and 1, 2 or 32 tokens: plain
    heads cost the same as one wide head, fewer key/value heads less (and the line says which, from counts), the
    counts worked from the recipe by conftest.hand_costs, not by mha.attention_costs."""
    for tokens in (1, 2, mha.MAX_TOKENS):
        one = hand_costs(tokens, width, 1)
        for h in mha.head_choices(width):  # the settings the pickers offer; the counts are worked by hand
            for g in mha.kv_head_choices(h):
                parameters, multiply_adds = hand_costs(tokens, width, h, g)
                line = text(recipe.cost_line(mha.attention_costs(tokens, width, h, g)))
                assert f"{parameters:,} parameters and {multiply_adds:,} multiply-adds for {tokens:,} token" in line
                assert "against" not in line
                if h == 1:
                    assert "This is the one wide head" in line
                elif g == h:
                    assert (parameters, multiply_adds) == one
                    assert f"the same as one head of width {width};" in line
                else:
                    assert parameters < one[0] and multiply_adds < one[1]
                    assert f"fewer than one head of width {width} ({one[0]:,} and {one[1]:,})" in line
                assert f"{h} weight table{'s' if h > 1 else ''} of {tokens} × {tokens}" in line


# --- section 2: the sequence length's share ----------------------------------------------------

@pytest.mark.parametrize("n, every, causal, multiply_adds", SHARES)
def test_the_share_prints_the_hand_worked_percentages(n, every, causal, multiply_adds):
    (share,) = FIGURES["fig-cost-share"].build({**figure_state.default_state(), "cost_seq_len": n}, None, None)
    dom.check(share)
    assert [text(strong) for strong in find(share, "strong")] == [every, causal]
    assert text(share) == (f"In one attention layer of Llama-3-8B (MLP aside) over {n:,} "
                           f"token{'s' if n > 1 else ''}, the n × n part (scores and weighted sums) is {every} of "
                           f"{multiply_adds} multiply-adds, {causal} under a causal mask.")


def test_the_share_holds_the_exact_fractions_for_the_tests_and_screen_readers_read_the_percent():
    (share,) = recipe.cost_share(8192)
    assert [float(strong[1]["data-value"]) for strong in find(share, "strong")] == \
        pytest.approx([8 / 13, 8193 / 18433], abs=1e-15)


def test_a_length_beyond_the_models_context_is_counted_and_said():
    (share,) = recipe.cost_share(8193)
    assert text(share).endswith("Llama-3-8B was built for 8,192 tokens: the count goes on, the model was not "
                               "trained to read that far.")


@pytest.mark.parametrize("share, printed", [
    (1 / 2561, "0.04%"), (8 / 13, "62%"), (8193 / 18433, "44%"), (0.5, "50%"), (1.0, "100%"), (0.01, "1%"),
    (0.99, "99%"), (0.995, "99.50%"), (0.009, "0.90%"),
    (10**7 / (10**7 + 5120), "99.95%"),  # the field's longest, n / (n + 5,120): not 100%
])
def test_shares_print_as_whole_percents_but_never_round_to_either_end_at_the_fields_limits(share, printed):
    assert recipe.share_text(share) == printed


def test_the_field_holds_the_states_length_and_redraws_with_a_link_or_a_reset():
    (field,) = FIGURES["fig-cost-seq-len"].build(figure_state.default_state(), None, None)
    dom.check(field)
    (box,) = find(field, "input", id="cost-seq-len")
    assert box[1]["value"] == "8192" and box[1]["type"] == "text"
    assert box[1]["aria-describedby"] == "cost-seq-len-error"
    assert text(field).startswith("sequence length n")
    assert FIGURES["fig-cost-seq-len"].redraw == ("controls",)       # a link, a reset, a preset
    assert set(FIGURES["fig-cost-share"].redraw) == {"controls", "cost"}  # and its own field (main.INPUTS)


def test_the_section_2_cost_sentence_names_the_model():
    assert text(recipe.cost_share(8192)).startswith("In one attention layer of Llama-3-8B (MLP aside) over 8,192 tokens")
    assert not [key for key in prose() if key.startswith("cost-model")]  # the figure names it: no prose mark
