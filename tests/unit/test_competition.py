"""Section 9: the competition figure, its numbers, and the claims its prose makes about them.

Worked by hand. The query (the last token) is q = [2, 0, 2, 0], token 0 is r = [4, 0, 1, 0], and the
distractors are d = [0, +-2, 3, 0] (the sign alternates; q's slot 1 is 0, so it never counts). Under the
causal mask the last token sees all k + 2 tokens, itself included. Dot products with q:

    slots        token 0   the query   a distractor   scale
    0-1 (head 0)    8          4            0          1/sqrt 2
    2-3 (head 1)    2          4            6          1/sqrt 2
    0-3 (wide)     10          8            6          1/2       (the sum of the two slices)

Divide token 0's softmax term into the others' (a row is e^score over the sum of e^score):
- head 0: w0 = 1 / (1 + e^(-4/sqrt2) + k e^(-8/sqrt2)) = 1 / (1 + e^(-2 sqrt2) + k e^(-4 sqrt2));
- head 1: w1 = 1 / (1 + e^(2/sqrt2) + k e^(4/sqrt2))  = 1 / (1 + e^(sqrt2) + k e^(2 sqrt2));
- wide:   ww = 1 / (1 + e^(-2/2) + k e^(-4/2))      = 1 / (1 + e^-1 + k e^-2).
With e^(4 sqrt2) = 286.25, e^(2 sqrt2) = 16.919, e^(sqrt2) = 4.1133, e^2 = 7.3891, e^-1 = 0.36788:
- k = 0:    w0 = 1 / 1.05911 = 0.9442;  w1 = 1 / 5.1133 = 0.1956;  ww = 1 / 1.36788 = 0.7311;
- k = 1:    w0 = 1 / 1.06260 = 0.9411;  w1 = 1 / (5.1133 + 16.919) = 0.0454;  ww = 1 / 1.50321 = 0.6652;
- k = 30:   w0 = 1 / (1.05911 + 30/286.25) = 1 / 1.16391 = 0.8592;
            w1 = 1 / (5.1133 + 30 * 16.919) = 1 / 512.68 = 0.0020;  ww = 1 / (1.36788 + 4.0601) = 0.1842;
- k = 1000: w0 = 1 / (1.05911 + 3.49345) = 0.2197;  w1 = 1 / 16924 = 0.0001;
            ww = 1 / (1.36788 + 135.34) = 0.0073.
Token 0's weight over one distractor's is the ratio of their terms, the same at every k: e^(8/sqrt2) =
286.2 in head 0, e^(4/2) = 7.4 in the wide head; in head 1 a distractor outweighs token 0 e^(4/sqrt2) = 16.9
times. The prose's "about 1/(1 + N e^(-m/sqrt dk))" leaves out only the query's own term, e^(-2 sqrt2) =
0.0591 in head 0's denominator.
"""

import math
from pathlib import Path

import pytest

import mha
import mha.text
from figures import FIGURES, competition, prose, redrawn_by
from mha.lesson import COMPETITION_DISTRACTORS, COMPETITION_QUERY, COMPETITION_RELEVANT
from page.dom import check
from page.state import MAX_DISTRACTORS, parse_distractors
from trees import find, text

# figures.prose() and run_data() read section 8's training run, which build.py trains and caches:
# these tests wait for the session's build (conftest.py) instead of training it a second time beside it.
pytestmark = pytest.mark.usefixtures("built_site")

SECTION = Path(competition.__file__).parents[1] / "sections" / "prompts.html"
SQRT2 = math.sqrt(2)
HAND = {  # [head 0, head 1, one wide head] on token 0, worked in the module docstring
    0: ["0.9442", "0.1956", "0.7311"],
    1: ["0.9411", "0.0454", "0.6652"],
    30: ["0.8592", "0.0020", "0.1842"],
    1000: ["0.2197", "0.0001", "0.0073"],
}
SPREAD = sorted({*range(0, MAX_DISTRACTORS + 1, 37), *competition.SAMPLES, 999})  # counts the sweeps try


# --- the references ----------------------------------------------------------------

def closed_form(k):
    """The module docstring's three weights on token 0 among k distractors, as floats."""
    return [1 / (1 + math.exp(-2 * SQRT2) + k * math.exp(-4 * SQRT2)),
            1 / (1 + math.exp(SQRT2) + k * math.exp(2 * SQRT2)),
            1 / (1 + math.exp(-1) + k * math.exp(-2))]


def numpy_last_row(tokens, start, stop):
    """The last token's causal softmax row over slots [start, stop), by numpy (it sees every token)."""
    np = pytest.importorskip("numpy")
    x = np.array(tokens)[:, start:stop]
    scores = x @ x[-1] / math.sqrt(stop - start)
    weights = np.exp(scores - scores.max())
    return weights / weights.sum()


# --- the numbers -------------------------------------------------------------------

def test_the_query_is_the_last_token_and_the_relevant_one_comes_first():
    tokens = competition.competition_tokens(3)
    assert tokens[0] == list(COMPETITION_RELEVANT) and tokens[-1] == list(COMPETITION_QUERY)
    assert tokens[1:-1] == [list(row) for row in (*COMPETITION_DISTRACTORS, COMPETITION_DISTRACTORS[0])]


def test_the_lesson_tokens_are_the_ones_worked_by_hand():
    assert COMPETITION_QUERY == (2, 0, 2, 0) and COMPETITION_RELEVANT == (4, 0, 1, 0)
    assert [list(d) for d in COMPETITION_DISTRACTORS] == [[0, 2, 3, 0], [0, -2, 3, 0]]


@pytest.mark.parametrize("k", HAND)
def test_the_weights_on_token_0_are_the_hand_worked_numbers(k):
    assert [f"{w:.4f}" for w in competition.relevant_weights(k)] == HAND[k]


@pytest.mark.parametrize("k", SPREAD)
def test_relevant_weights_match_the_hand_worked_closed_form(k):
    assert competition.relevant_weights(k) == pytest.approx(closed_form(k), abs=1e-12)


@pytest.mark.parametrize("k", [0, 1, 7, 30])
def test_the_query_row_is_the_last_row_of_mhas_causal_table(k):
    """query_rows computes one row against the whole sequence: the causal table's last row, exactly."""
    tokens = competition.competition_tokens(k)
    heads = mha.multi_head_attention(tokens, 2, causal=True).weights
    _, wide = mha.single_head_attention(tokens, causal=True)
    assert competition.query_rows(k) == [heads[0][-1], heads[1][-1], wide[-1]]


@pytest.mark.parametrize("k", [0, 1, 30, MAX_DISTRACTORS])
def test_the_query_row_matches_numpy(k):
    tokens = competition.competition_tokens(k)
    refs = [numpy_last_row(tokens, 0, 2), numpy_last_row(tokens, 2, 4), numpy_last_row(tokens, 0, 4)]
    for row, ref in zip(competition.query_rows(k), refs):
        assert row == pytest.approx(list(ref), abs=1e-12)


@pytest.mark.parametrize("bad", [-1, MAX_DISTRACTORS + 1, 2.0, True, "3"])
def test_competition_tokens_refuse_a_count_out_of_range(bad):
    with pytest.raises(ValueError, match="distractors must be a whole number from 0 to 1000"):
        competition.competition_tokens(bad)


# --- the prose's claims, at every count the sweep tries --------------------------------

def test_token_0_is_head_0s_best_match_and_every_distractor_beats_it_in_head_1():
    """'Token 0 is ... its best match in slots 0-1'; a distractor: 'no match at all in slots 0-1, but a better
    one than token 0 in slots 2-3'."""
    np = pytest.importorskip("numpy")
    q, r, ds = np.array(COMPETITION_QUERY), np.array(COMPETITION_RELEVANT), np.array(COMPETITION_DISTRACTORS)
    assert q[:2] @ r[:2] > q[:2] @ q[:2] and all(q[:2] @ d[:2] == 0 for d in ds)
    assert all(q[2:] @ d[2:] > q[2:] @ r[2:] for d in ds)


@pytest.mark.parametrize("k", [k for k in SPREAD if k])
def test_a_distractors_weight_is_a_fixed_fraction_of_token_0s_at_every_count(k):
    """'set by their score gap, not by their number': every distractor, every count, the same ratio."""
    # token 0 over a distractor, by hand: head 0 scores 8 against 0 (/sqrt 2), head 1 2 against 6 (/sqrt 2),
    # the wide head 10 against 6 (/sqrt 4)
    hand = (math.exp(8 / SQRT2), math.exp(-4 / SQRT2), math.exp(4 / 2))
    assert competition.leads() == pytest.approx(hand, rel=1e-12)
    for row, lead in zip(competition.query_rows(k), hand):
        assert all(row[0] / w == pytest.approx(lead, rel=1e-12) for w in row[1:-1])


def test_the_leads_the_prose_prints_are_the_hand_worked_ratios():
    values = prose()
    assert (values["competition-lead-head-0"], values["competition-trail-head-1"],
            values["competition-lead-wide"], values["competition-wide-width"]) == ("286.2", "16.9", "7.4", "4")
    section = SECTION.read_text()
    for key in values:
        if key.startswith("competition-"):
            assert f"<!--value:{key}-->" in section, key


def test_every_line_falls_with_each_distractor_and_head_0_keeps_the_most():
    """'spares one keyed on other features, though not forever': each line falls over the whole axis; head 0 stays
    on top."""
    weights = [competition.relevant_weights(k) for k in SPREAD]
    for line in range(3):
        column = [w[line] for w in weights]
        assert all(a > b for a, b in zip(column, column[1:])), line
    assert all(head_0 > wide > head_1 for head_0, head_1, wide in weights)


@pytest.mark.parametrize("k", SPREAD)
def test_the_prose_formula_leaves_out_only_the_querys_own_term(k):
    """'about 1/(1 + N e^(-m/sqrt dk))' with m = 8, dk = 2 in head 0: the rest of 1/w is e^(-2 sqrt2)."""
    head_0 = competition.relevant_weights(k)[0]
    assert 1 / head_0 - (1 + k * math.exp(-8 / SQRT2)) == pytest.approx(math.exp(-2 * SQRT2), abs=1e-9)


def margin_for_half(n, head_width):
    """The lead m (dot product over a distractor's) that keeps half of one head's row on token 0 among n
    distractors, found by bisection on mha's weights. Query 2 e_0, token 0 (m/2) e_0, distractors 2 e_1."""
    def weight(m):
        tokens = [[m / 2] + [0.0] * (head_width - 1), *([[0.0, 2.0] + [0.0] * (head_width - 2)] * n),
                  [2.0] + [0.0] * (head_width - 1)]
        return mha.multi_head_attention(tokens[-1:], 1, context=tokens).weights[0][0][0]
    low, high = 0.0, 100.0
    for _ in range(60):
        low, high = (low, (low + high) / 2) if weight((low + high) / 2) > 0.5 else ((low + high) / 2, high)
    return low


@pytest.mark.parametrize("head_width", [2, 8])
def test_holding_a_share_takes_a_margin_that_grows_like_sqrt_width_times_log_n(head_width):
    """'a margin that grows like sqrt(dk) ln N'. By hand: half the row on token 0 means its term equals the
    rest, e^(m/sqrt dk) = e^(4/sqrt dk) + n (the query scores 4 against itself, a distractor 0), so
    m = sqrt(dk) ln(n + e^(4/sqrt dk)): each tenfold more distractors adds sqrt(dk) ln 10 once n is large."""
    counts = [10, 100, 1000, 10000]
    margins = [margin_for_half(n, head_width) for n in counts]
    root = math.sqrt(head_width)
    assert margins == pytest.approx([root * math.log(n + math.exp(4 / root)) for n in counts], abs=1e-9)
    steps = [b - a for a, b in zip(margins, margins[1:])]
    assert steps[-1] == pytest.approx(root * math.log(10), rel=0.01)
    assert all(a < b for a, b in zip(steps, steps[1:]))  # approaching it from below, decade by decade


# --- the chart -----------------------------------------------------------------------

def points(polyline):
    return [tuple(map(float, p.split(","))) for p in polyline[1]["points"].split()]


def weight_at(y):
    """The chart's y back to a weight (the inverse of competition._y)."""
    return (competition.BOTTOM - y) / (competition.BOTTOM - competition.TOP)


def log_x(k):
    """Where count k belongs on the axis: log(1 + k) of log(1 + 1000) across the plot area."""
    return competition.LEFT + (competition.RIGHT - competition.LEFT) * math.log(1 + k) / math.log(1001)


@pytest.mark.parametrize("k, words", [(0, "no distractors"), (1, "1 distractor"), (37, "37 distractors"),
                                      (MAX_DISTRACTORS, "1,000 distractors")])
def test_the_chart_draws_one_line_per_head_and_marks_the_current_count(k, words):
    chart = competition.competition_chart(k)
    check(chart)
    assert chart[0] == "svg" and chart[1]["aria-hidden"] == "true" and chart[1]["data-distractors"] == str(k)
    lines = find(chart, "polyline")
    assert [line[1]["class"] for line in lines] == ["line head-0 held", "line head-1", "line wide"]  # held: Check
    for i, line in enumerate(lines):
        drawn = points(line)
        assert [x for x, _ in drawn] == pytest.approx([log_x(j) for j in competition.SAMPLES], abs=0.01)
        assert [weight_at(y) for _, y in drawn] == pytest.approx([closed_form(j)[i] for j in competition.SAMPLES],
                                                                 abs=0.001)
    (rule,) = find(chart, "line", **{"class": "rule"})
    assert float(rule[1]["x1"]) == float(rule[1]["x2"]) == pytest.approx(log_x(k), abs=0.01)
    dots = find(chart, "circle")
    assert [weight_at(d[1]["cy"]) for d in dots] == pytest.approx(closed_form(k), abs=0.001)
    assert all(d[1]["cx"] == pytest.approx(log_x(k), abs=0.01) for d in dots)
    assert text(find(chart, "g", **{"class": "now"})[0]) == words


def test_the_axis_runs_from_0_to_1000_on_a_log_scale():
    chart = competition.competition_chart(0)
    ticks = [t for t in find(chart, "text") if t[1]["class"] == "tick" and t[1]["text-anchor"] == "middle"]
    assert [text(t) for t in ticks] == ["0", "1", "10", "100", "1,000"]
    assert [t[1]["x"] for t in ticks] == pytest.approx([log_x(k) for k in (0, 1, 10, 100, 1000)], abs=0.01)
    marks = [m for m in find(chart, "line") if m[1]["class"] == "axis" and m[1]["x1"] == m[1]["x2"]]
    assert sorted(m[1]["x1"] for m in marks) == pytest.approx([log_x(k) for k in (0, 1, 3, 10, 30, 100, 300, 1000)],
                                                              abs=0.01)
    assert "distractor tokens (log scale)" in [text(t) for t in find(chart, "text")]


def test_the_lines_are_named_in_the_chart_without_overlapping_or_dropping_onto_the_ticks():
    names = [n for n in find(competition.competition_chart(0), "text") if "line-name" in n[1]["class"]]
    assert [text(n) for n in names] == ["head 0", "head 1", "one wide head"]
    heights = sorted(n[1]["y"] for n in names)
    assert all(b - a >= competition.LABEL_GAP for a, b in zip(heights, heights[1:]))
    assert heights[-1] <= competition.BOTTOM + 4


@pytest.mark.parametrize("k", [0, 37, MAX_DISTRACTORS])
def test_a_phone_gets_a_drawing_of_its_own_whose_names_and_ticks_never_overlap(k):
    """NARROW: names at least a 13 px line apart (their font, competition.css), the last tick label ending at the
    axis, left of the names; the same weights as the desktop drawing."""
    (wide, narrow) = FIGURES["competition-chart"].build({"distractors": k}, None, None)
    assert wide[1]["class"] == "competition-chart wide" and narrow[1]["class"] == "competition-chart narrow"
    at = competition.NARROW
    assert narrow[1]["viewBox"] == f"0 0 {at.width} {at.height}"
    names = [n for n in find(narrow, "text") if "line-name" in n[1]["class"]]
    heights = sorted(n[1]["y"] for n in names)
    assert all(b - a >= 13 for a, b in zip(heights, heights[1:])) and heights[-1] <= at.bottom + 4
    (last,) = [t for t in find(narrow, "text") if text(t) == "1,000" and t[1]["class"] == "tick"]
    assert last[1]["text-anchor"] == "end" and last[1]["x"] < min(n[1]["x"] for n in names)
    dots = find(narrow, "circle")
    assert [(at.bottom - d[1]["cy"]) / (at.bottom - at.top) for d in dots] == pytest.approx(closed_form(k), abs=0.001)
    assert [c for d in dots for c in [d[1]["class"]]] == ["dot head-0 held", "dot head-1", "dot wide"]


def test_at_no_distractors_the_table_has_one_column_and_says_whose_mask_it_is():
    tree = competition.competition_figure(0)
    assert [text(th) for th in find(find(tree, "thead")[0], "th")] == ["head", "no distractors"]
    assert text(find(tree, "caption")[0]).endswith("among 2 tokens (masked causally here, whatever section 3's box says)")


@pytest.mark.parametrize("k", [0, 1, MAX_DISTRACTORS])
def test_head_0s_row_and_the_paragraphs_that_give_it_away_wait_for_check(k):
    """Review item 12: typing 1,000 showed head 0's 0.2197 in the table and the sentence before Check, and the
    prose's 286.2-to-1 lead gave it away. Head 0's row is held (competition.css hides it, as head 0's line);
    the live sentence and the two paragraphs on the leads sit in the section's [data-after=prompts] block."""
    rows = find(find(competition.competition_figure(k), "tbody")[0], "tr")
    assert [r[1].get("class") for r in rows] == ["held", None, None]
    css = (SECTION.parents[1] / "styles" / "competition.css").read_text()
    assert '.figure-panel:has([data-after="prompts"][hidden]) .competition tr.held { display: none; }' in css
    source = SECTION.read_text()
    start = source.index('<div data-after="prompts" hidden>')
    held = source[start:source.index("</div>", start)]
    for giveaway in ('id="competition-now"', "<!--value:competition-lead-head-0-->", "though not forever"):
        assert giveaway in held and source.count(giveaway) == 1, giveaway


def test_the_near_duplicate_rule_cites_each_seed_s_medians_with_none_and_eight_chunks_between():
    """The rule's sentence is mha.text_lesson.competition's medians, stored in each model's measurements (and checked
    against numpy in test_text_measurements): with no chunk, after 8 near-duplicates, after 8 unrelated ids."""
    said = prose()["text-competition"]
    for kind, at in (("near", 0), ("near", -1), ("unrelated", -1)):
        values = [mha.text.load(seed).measurements["competition"][kind][at] for seed in mha.text.SEEDS]
        printed = [f"{v:.2f}" if v >= 0.01 else f"{v:.{1 - math.floor(math.log10(v))}f}" for v in values]
        assert f"{printed[0]}, {printed[1]} and {printed[2]}" in said
    assert said.startswith("falls from ") and "after 8 near-duplicate lines" in said
    rule = SECTION.read_text()
    assert "a tie" not in rule and "equally good" not in rule
    assert "<!--value:text-competition-->" in rule and "<!--render:fig-text-competition-->" in rule


def test_the_chart_the_tables_and_the_sentence_redraw_when_the_count_changes():
    ids = {"competition-chart", "competition-table", "competition-curve", "competition-now"}
    assert ids <= set(redrawn_by("competition")) and ids <= set(redrawn_by("controls"))
    assert all(FIGURES[i].mark for i in ids)
    assert '<span id="competition-now"><!--render:competition-now--></span>' in SECTION.read_text()


# --- the tables and the sentence (the accessible source of the chart's numbers) -----------

@pytest.mark.parametrize("k, heading", [(1, "1 distractor"), (30, "30 distractors"),
                                        (MAX_DISTRACTORS, "1,000 distractors")])
def test_competition_figure_prints_no_distractors_and_now(k, heading):
    tree = competition.competition_figure(k)
    check(tree)
    assert [text(th) for th in find(find(tree, "thead")[0], "th")] == ["head", "no distractors", heading]
    rows = find(find(tree, "tbody")[0], "tr")
    assert [text(find(r, "th")[0]) for r in rows] == ["head 0", "head 1", "one wide head"]
    assert [[text(td).strip() for td in find(r, "td")] for r in rows] == [list(ab) for ab in zip(HAND[0], HAND[k])]
    assert all(find(td, "span", aria_hidden="true") for r in rows for td in find(r, "td"))


@pytest.mark.parametrize("k", [7, 37, MAX_DISTRACTORS])
def test_the_curve_table_lists_the_plotted_counts_and_marks_the_current_one(k):
    tree = competition.competition_curve(k)
    check(tree)
    rows = find(find(tree, "tbody")[0], "tr")
    counts = sorted({*competition.SAMPLES, k})
    assert [text(find(r, "th")[0]) for r in rows] == [f"{c:,}" for c in counts]
    marked = [r for r in rows if r[1].get("aria-current") == "true"]
    assert len(marked) == 1 and text(find(marked[0], "th")[0]) == f"{k:,}"
    assert [float(td[1]["data-value"]) for td in find(marked[0], "td")] == pytest.approx(closed_form(k), abs=1e-12)


@pytest.mark.parametrize("k, sentence", [  # the weights above, as a sentence prints them (2 significant digits
    (0, "With no distractors, head 0 keeps 0.94 of its row on token 0, the one wide head 0.73 and head 1 0.20."),
    (1, "With 1 distractor, head 0 keeps 0.94 of its row on token 0, the one wide head 0.67 and head 1 0.05."),
    (1000, "With 1,000 distractors, head 0 keeps 0.22 of its row on token 0, the one wide head 0.0073 and head 1 "
           "0.000059."),  # below 0.01): head 1's 1 / (1 + e^sqrt2 + 1000 e^(2 sqrt2)) = 5.9e-05
])
def test_the_sentence_under_the_chart_quotes_the_hand_worked_weights_at_the_count(k, sentence):
    assert competition.competition_now(k) == [sentence]


# --- the field -------------------------------------------------------------------------

def test_distractor_input_reads_back_through_parse_distractors():
    (field,) = find(competition.distractor_input(1000), "input", id="distractors")
    assert parse_distractors(field[1]["value"]) == 1000 and field[1]["type"] == "text"


@pytest.mark.parametrize("bad", ["-1", "1001", "many", "1e309", ""])
def test_distractor_count_is_checked(bad):
    with pytest.raises(ValueError, match="distractors"):
        parse_distractors(bad)
