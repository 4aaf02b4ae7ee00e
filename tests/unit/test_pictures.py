"""Section 3's pictures and prose (figures/pictures.py): lines that mirror the tables, the 1/sqrt(d) chart.

References: the worked example's numbers (tests/conftest.py, by hand), numpy for the
1/sqrt(d) chart, and the section's own text for the claims it makes.
"""

import math
import re
from pathlib import Path

import numpy as np
import pytest

import mha
from figures import heads, pictures
from mha.projections import random_vectors
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


# --- why 1/sqrt(d): the static chart ---------------------------------------------------

def numpy_largest_weights(d):
    """The chart's row recomputed with numpy: softmax(q . k / sqrt(d)) and softmax(q . k), largest weights."""
    query, *keys = np.array(random_vectors(1 + pictures.SCALE_KEYS, d, seed=pictures.SCALE_SEED))
    scores = np.array(keys) @ query

    def largest(s):
        e = np.exp(s - s.max())
        return (e / e.sum()).max()
    return largest(scores / math.sqrt(d)), largest(scores)


def test_the_chart_matches_numpy_and_shows_what_the_prose_says():
    rows = pictures.scale_rows()
    assert [d for d, _, _ in rows] == [4, 64, 1024]
    for d, scaled, raw in rows:
        assert (scaled, raw) == pytest.approx(numpy_largest_weights(d), abs=1e-12)
        assert scaled < 0.5 and scaled < raw  # divided: a spread-out row at every width
    assert rows[-1][2] > 0.9999 and rows[1][2] > 0.9  # raw: the wide heads saturate
    chart = pictures.scale_chart()
    label = tagged(chart, "svg")[0][1]["aria-label"]
    assert all(f"{scaled:.4f}" in label and f"{raw:.4f}" in label for _, scaled, raw in rows)


def test_the_typical_dot_product_grows_like_root_d_as_the_prose_says():
    """'about 2 across 4 slots, about 32 across 1024': sqrt(4) = 2, sqrt(1024) = 32, from mha's vectors."""
    for d, words in ((4, "about 2 across 4 slots"), (1024, "about 32 across 1024")):
        v = np.array(random_vectors(600, d, seed=5))
        dots = (v[:300] * v[300:]).sum(axis=1)
        assert dots.std() == pytest.approx(math.sqrt(d), rel=0.15)
        assert words in " ".join(SECTION.split())


# --- the section's prose ----------------------------------------------------------------

def test_every_value_mark_of_the_section_is_in_prose_and_agrees_with_mha():
    marks = set(re.findall(r"<!--value:([a-z0-9-]+)-->", SECTION))
    assert marks <= set(pictures.PROSE)
    values = {key: make() for key, make in pictures.PROSE.items()}
    assert values["scale-1024-raw"] == "1.0000"


def test_the_prose_number_for_the_largest_default_weight_is_right():
    """'As loaded, no row is far from even: the biggest weight is 0.6698' (head 1, conftest.py)."""
    view = figure_state.compute(figure_state.default_state())
    largest = max(w for table in [*view.result.weights, view.wide] for row in table for w in row)
    assert f"{largest:.4f}" == "0.6698" and "the biggest weight is 0.6698" in " ".join(SECTION.split())


def test_the_projections_option_is_called_random_not_learned():
    assert ("random", "random projections (seeded)") in heads.PROJECTIONS
    assert "random projections (seeded)" in " ".join(SECTION.split())
    assert "learned (seeded" not in SECTION and "to learned" not in SECTION
