"""Section 8: the competition figure, its numbers, and the claims its prose makes about them.

References: closed forms worked by hand below, and numpy. The prose (site/sections/prompts.html)
claims, at every count 0..30: head 0 keeps the most weight on token 0, the one wide head the next
most, head 1 the least; every line falls with each distractor; head 1 starts at exactly 1/2.
"""

import math
from pathlib import Path

import pytest

import mha
from figures import FIGURES, competition, prose, redrawn_by
from mha.lesson import COMPETITION_DISTRACTORS, COMPETITION_QUERY, COMPETITION_RELEVANT
from page.dom import check
from page.state import MAX_DISTRACTORS, parse_distractors
from trees import find, nodes, text

# figures.prose() and run_data() read section 7's training run, which build.py trains and caches:
# these tests wait for the session's build (conftest.py) instead of training it a second time beside it.
pytestmark = pytest.mark.usefixtures("built_site")

COUNTS = range(MAX_DISTRACTORS + 1)
SECTION = Path(competition.__file__).parents[1] / "sections" / "prompts.html"


# --- the references ----------------------------------------------------------------

def closed_form(k):
    """The last token's weight on token 0 with k distractors, worked by hand.

    Query q = [2, 0, 2, 0], relevant r = [4, 0, 2, 0], distractors d = [0, +-2 or 1, 2, 0]; the
    query, last, sees all k + 2 tokens (itself included) under the causal mask.
    - head 0 (slots 0-1, scale 1/sqrt 2): q.r = 8, q.q = 4, q.d = 0 (orthogonal), so
      w0 = e^(8/sqrt2) / (e^(8/sqrt2) + e^(4/sqrt2) + k e^0).
    - head 1 (slots 2-3): q.r = q.q = q.d = 4, every score the same, so w1 = 1 / (k + 2).
    - one wide head (all 4 slots, scale 1/2): q.r = 12, q.q = 8, q.d = 4, scores 6, 4, 2, so
      wide = e^6 / (e^6 + e^4 + k e^2).
    """
    a, b = math.exp(8 / math.sqrt(2)), math.exp(4 / math.sqrt(2))
    return [a / (a + b + k), 1 / (k + 2), math.exp(6) / (math.exp(6) + math.exp(4) + k * math.exp(2))]


def numpy_weights(tokens, start, stop):
    """The causal softmax rows over slots [start, stop), by numpy: n x n."""
    np = pytest.importorskip("numpy")
    x = np.array(tokens)[:, start:stop]
    scores = x @ x.T / math.sqrt(stop - start)
    scores[np.triu_indices(len(x), 1)] = -np.inf   # token i sees 0..i
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)


# --- the numbers -------------------------------------------------------------------

def test_the_query_is_the_last_token_and_the_relevant_one_comes_first():
    tokens = competition.competition_tokens(4)
    assert tokens[0] == COMPETITION_RELEVANT and tokens[-1] == COMPETITION_QUERY
    assert tokens[1:-1] == [*COMPETITION_DISTRACTORS, COMPETITION_DISTRACTORS[0]]


@pytest.mark.parametrize("k", COUNTS)
def test_relevant_weights_match_the_hand_worked_closed_form(k):
    assert competition.relevant_weights(k) == pytest.approx(closed_form(k), abs=1e-12)


@pytest.mark.parametrize("k", [0, 1, 7, MAX_DISTRACTORS])
def test_relevant_weights_are_the_last_row_of_a_causal_numpy_reference(k):
    tokens = competition.competition_tokens(k)
    refs = [numpy_weights(tokens, 0, 2), numpy_weights(tokens, 2, 4), numpy_weights(tokens, 0, 4)]
    assert competition.relevant_weights(k) == pytest.approx([r[-1][0] for r in refs], abs=1e-12)
    assert all(r[0][0] == 1.0 for r in refs)  # the mask is on: token 0 alone sees only itself


def test_the_prose_ordering_holds_at_every_count():
    """'At every count, head 0 keeps the most weight on token 0, the wide head the next most, head 1 the least.'"""
    for k in COUNTS:
        head_0, head_1, wide = competition.relevant_weights(k)
        assert head_0 > wide > head_1, k


def test_every_line_falls_with_each_distractor_and_head_0_loses_least():
    """'every line in the chart falls with each distractor, head 0's included'; head 0 holds on."""
    curve = competition.curve()
    for line in range(3):
        column = [row[line] for row in curve]
        assert all(a > b for a, b in zip(column, column[1:])), line
    head_0, head_1, wide = (curve[0][i] - curve[-1][i] for i in range(3))
    assert head_0 < 0.1 < 0.25 < wide < head_1  # head 0 loses under a tenth; the others lose far more


def test_head_1_starts_at_one_half_because_the_query_matches_itself_as_well():
    assert competition.relevant_weights(0)[1] == pytest.approx(0.5, abs=1e-15)


def test_the_prose_numbers_are_the_curves_ends():
    values = prose()
    ends = {"alone": 0, "most": MAX_DISTRACTORS}
    for name, i in (("head-0", 0), ("head-1", 1), ("wide", 2)):
        for end, k in ends.items():
            assert values[f"competition-{name}-{end}"] == f"{closed_form(k)[i]:.4f}"
    assert values["competition-max"] == "30"
    section = SECTION.read_text()
    for key in values:
        if key.startswith("competition-"):
            assert f"<!--value:{key}-->" in section, key


@pytest.mark.parametrize("bad", [-1, MAX_DISTRACTORS + 1, 2.0, True, "3"])
def test_competition_tokens_refuse_a_count_out_of_range(bad):
    with pytest.raises(ValueError, match="distractors must be a whole number from 0 to 30"):
        competition.competition_tokens(bad)


# --- the chart -----------------------------------------------------------------------

def points(polyline):
    return [tuple(map(float, p.split(","))) for p in polyline[1]["points"].split()]


def weight_at(y):
    """The chart's y back to a weight (the inverse of competition._y)."""
    return (competition.BOTTOM - y) / (competition.BOTTOM - competition.TOP)


@pytest.mark.parametrize("k", [0, 5, MAX_DISTRACTORS])
def test_the_chart_draws_one_line_per_head_and_marks_the_current_count(k):
    chart = competition.competition_chart(k)
    check(chart)
    assert chart[0] == "svg" and chart[1]["aria-hidden"] == "true"
    lines = find(chart, "polyline")
    assert [line[1]["class"] for line in lines] == ["line head-0", "line head-1", "line wide"]
    for i, line in enumerate(lines):
        drawn = points(line)
        assert [x for x, _ in drawn] == pytest.approx([competition._x(j) for j in COUNTS])
        assert [weight_at(y) for _, y in drawn] == pytest.approx([closed_form(j)[i] for j in COUNTS], abs=0.001)
    (rule,) = find(chart, "line", **{"class": "rule"})
    assert float(rule[1]["x1"]) == float(rule[1]["x2"]) == competition._x(k)
    dots = find(chart, "circle")
    assert [weight_at(d[1]["cy"]) for d in dots] == pytest.approx(closed_form(k), abs=0.001)
    assert all(d[1]["cx"] == competition._x(k) for d in dots)
    assert f"{k} distractor" in text(find(chart, "g", **{"class": "now"})[0])


def test_the_lines_are_named_in_the_chart_without_overlapping():
    names = [n for n in find(competition.competition_chart(0), "text") if "line-name" in n[1]["class"]]
    assert [text(n) for n in names] == ["head 0", "head 1", "one wide head"]
    heights = sorted(n[1]["y"] for n in names)
    assert all(b - a >= competition.LABEL_GAP for a, b in zip(heights, heights[1:]))


def test_the_chart_and_both_tables_redraw_when_the_count_changes():
    assert {"competition-chart", "competition-table", "competition-curve"} <= set(redrawn_by("competition"))
    assert FIGURES["competition-chart"].mark


# --- the tables (the accessible source of the chart's numbers) ---------------------------

def test_competition_figure_prints_no_distractors_and_now():
    tree = competition.competition_figure(4)
    check(tree)
    rows = find(find(tree, "tbody")[0], "tr")
    assert [text(find(r, "th")[0]) for r in rows] == ["head 0", "head 1", "one wide head"]
    values = [[float(td[1]["data-value"]) for td in find(r, "td")] for r in rows]
    assert [list(col) for col in zip(*values)] == [pytest.approx(closed_form(0), abs=1e-12),
                                                   pytest.approx(closed_form(4), abs=1e-12)]
    assert all(find(td, "span", aria_hidden="true") for r in rows for td in find(r, "td"))


def test_the_curve_table_lists_every_count_and_marks_the_current_one():
    tree = competition.competition_curve(7)
    check(tree)
    rows = find(find(tree, "tbody")[0], "tr")
    assert [text(find(r, "th")[0]) for r in rows] == [str(k) for k in COUNTS]
    assert [r[1].get("aria-current") for r in rows].count("true") == 1 and rows[7][1]["aria-current"] == "true"
    assert [float(td[1]["data-value"]) for td in find(rows[7], "td")] == pytest.approx(closed_form(7), abs=1e-12)


# --- the field -------------------------------------------------------------------------

def test_distractor_input_reads_back_through_parse_distractors():
    (field,) = find(competition.distractor_input(7), "input", id="distractors")
    assert parse_distractors(field[1]["value"]) == 7 and field[1]["type"] == "text"


@pytest.mark.parametrize("bad", ["-1", "31", "many", "1e309", ""])
def test_distractor_count_is_checked(bad):
    with pytest.raises(ValueError, match="distractors"):
        parse_distractors(bad)


def test_every_weight_comes_from_mha_with_the_causal_mask():
    """relevant_weights is mha.multi_head_attention(causal=True)'s last row, not a copy of the math."""
    tokens = competition.competition_tokens(3)
    heads = mha.multi_head_attention(tokens, 2, causal=True).weights
    _, wide = mha.single_head_attention(tokens, causal=True)
    assert competition.relevant_weights(3) == [heads[0][-1][0], heads[1][-1][0], wide[-1][0]]
