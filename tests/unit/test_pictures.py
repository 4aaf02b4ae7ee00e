"""Section 3's pictures and prose (figures/pictures.py): lines that mirror the tables.

References: the worked example's numbers (tests/conftest.py, by hand) and the section's own
text for the claims it makes.
"""

from pathlib import Path

import mha
from figures import heads, pictures
from page import state as figure_state
from page.dom import to_json
from trees import exact_values, nodes

SECTION = (Path(__file__).resolve().parents[2] / "site" / "sections" / "worked-example.html").read_text()

# --- test data ---------------------------------------------------------------

# The worked example's head 1 (conftest.py): gap 1/sqrt(2) between a token's two scores.
HEAD_1 = [[0.6697615493266569, 0.3302384506733431], [0.3302384506733431, 0.6697615493266569]]


def tagged(tree, tag, cls=None):
    return [n for n in nodes(tree) if n[0] == tag and (cls is None or cls in n[1].get("class", "").split())]


def lesson_tables(tokens=mha.LESSON_TOKENS, **options):
    view = figure_state.compute({**figure_state.default_state(), "tokens": tokens, **options})
    return view, heads.head_tables(view.result, view.wide)


# --- the attention pictures ------------------------------------------------------------

def test_a_picture_draws_one_line_per_weight_with_the_weight_as_opacity():
    picture = pictures.attention_picture(HEAD_1)
    lines = tagged(picture, "line", "attn-line")
    assert [float(line[1]["stroke-opacity"]) for line in lines] == [w for row in HEAD_1 for w in row]
    assert picture[1]["aria-hidden"] == "true"  # the table is the accessible source
    groups = tagged(picture, "g", "attn-q")
    assert [g[1]["data-query"] for g in groups] == ["0", "1"]
    assert all(len(tagged(g, "line")) == 2 for g in groups)  # each query's lines sit in its own group
    to_json([picture])  # a tree the page's drawer accepts


def test_lines_follow_the_cells_of_the_tables_one_for_one_which_is_what_mhapatch_relies_on():
    """boot.js sets line i's stroke-opacity from the number of td i: the orders must agree."""
    for options in ({}, {"causal": True}, {"heads": 1, "kv_heads": 1}):
        _, tree = lesson_tables(**options)
        values = exact_values(tree)  # the tables' numbers, in the order of their cells
        assert len(values) == len(tagged(tree, "td"))
        opacities = [line[1]["stroke-opacity"] for line in tagged(tree, "line", "attn-line")]
        assert opacities == values and values


def test_cross_attention_pictures_have_a_line_per_query_and_context_token():
    view = figure_state.compute(figure_state.with_cross(figure_state.default_state(), True))
    tree = heads.head_tables(view.cross, view.cross_wide, None, "context token", heads.CROSS_SUFFIX)
    picture = tagged(tree, "svg", "attn-picture")[0]
    assert len(tagged(picture, "line", "attn-line")) == 2 * 3  # 2 queries, 3 context tokens
    assert exact_values(tree) == [line[1]["stroke-opacity"] for line in tagged(tree, "line", "attn-line")]


def test_past_the_token_limit_there_are_no_lines_and_the_page_says_why():
    many = [[0.1 * t, 0.0, 0.0, 1.0] for t in range(pictures.PICTURE_TOKENS + 1)]
    _, tree = lesson_tables(many)
    assert not tagged(tree, "svg") and not tagged(tree, "line")
    note = tagged(tree, "p", "pictures-note")
    assert len(note) == 1 and f"up to {pictures.PICTURE_TOKENS} tokens" in note[0][2]
    at_limit = [[0.1 * t, 0.0, 0.0, 1.0] for t in range(pictures.PICTURE_TOKENS)]
    assert len(tagged(lesson_tables(at_limit)[1], "svg", "attn-picture")) == 3


# --- the section's prose ----------------------------------------------------------------

def test_the_projections_option_is_called_random_not_learned():
    assert ("random", "random projections (seeded)") in heads.PROJECTIONS
    assert "random projections (seeded)" in " ".join(SECTION.split())
    assert "learned (seeded" not in SECTION and "to learned" not in SECTION
