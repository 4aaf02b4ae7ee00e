"""Sections 1 and 2 in Chromium: the blend tables, and the data flow and counts following the reader.

One page is shared by this module's tests (Pyodide takes seconds to start); each test starts
from "reset the figures". The shapes are worked by hand (d/h, kv_heads x d/h); the counts are
mha.attention_costs', whose numbers tests/unit/test_costs.py works by hand.
"""

import re

from playwright.sync_api import expect

import mha

# --- test data ---------------------------------------------------------------

# (what the reader does, then the boxes' shapes top to bottom: tokens, queries, keys, values,
#  then per drawn head: its slice, its weights, its output; then the concatenation and the output)
DEFAULT_SHAPES = ["2 × 4", "2 × 4", "2 × 4", "2 × 4", "2 × 2", "2 × 2", "2 × 2", "2 × 2", "2 × 2", "2 × 2",
                  "2 × 4", "2 × 4"]


# --- the shared page ------------------------------------------------------------

# --- helpers ---------------------------------------------------------------------

def shapes(page):
    return page.locator("#fig-recipe-flow .flow-shape")


def show_counts(page):
    """The counts wait for section 2's question (figures/questions.py): answer it, as a reader would."""
    question = page.locator('fieldset[data-question="recipe"]')
    question.get_by_label("neither: they cost the same").check()
    question.get_by_role("button", name="Check my answer").click()
    expect(page.locator("#q-recipe-answer")).to_have_attribute("data-verdict", "right")


def expect_counts(page, tokens, width, heads, kv_heads=None):
    """The cost table's first column shows mha.attention_costs for these sizes, in data-value and text."""
    show_counts(page)
    costs = mha.attention_costs(tokens, width, heads, kv_heads)
    table = page.get_by_role("table", name="attention costs", exact=True)
    for name, value in [("tokens n", tokens), ("width d", width), ("query heads h", heads), ("W_K", costs.w_k),
                        ("projections x W_Q, W_K, W_V", costs.projections), ("scores q · k", costs.scores),
                        ("weights (h × n × n)", costs.weights)]:
        row = table.locator("tbody tr").filter(has=page.locator("th", has_text=re.compile(f"^{re.escape(name)}$")))
        cell = row.locator("td").first
        expect(cell).to_have_attribute("data-value", str(value))
        expect(cell).to_have_text(f"{value:,}")
    totals = table.locator("tr.total")
    expect(totals.nth(0).locator("td").first).to_have_attribute("data-value", str(costs.parameters))
    expect(totals.nth(1).locator("td").first).to_have_attribute("data-value", str(costs.multiply_adds))


# --- tests -------------------------------------------------------------------------

def test_section_1_shows_each_head_returning_one_value_and_the_wide_head_a_blend(reader):
    result = mha.multi_head_attention(mha.BLEND_TOKENS, 2, causal=True)
    wide = mha.multi_head_attention(mha.BLEND_TOKENS, 1, causal=True)
    for label, output in [("head 0 mix", result.head_outputs[0][2]), ("head 1 mix", result.head_outputs[1][2]),
                          ("one head mix", wide.outputs[2])]:
        row = reader.get_by_role("table", name=label, exact=True).locator("tr.blend-output td.num")
        expect(row).to_have_text([f"{x:.4f}" for x in output])
    expect(reader.locator("#why-heads")).to_contain_text(f"gives each {wide.weights[0][2][0]:.4f}")


def test_the_diagram_and_counts_follow_width_heads_and_tokens(reader):
    expect_counts(reader, 2, 4, 2)
    reader.select_option("#width", "8")            # 2 heads of width 4
    expect(shapes(reader)).to_have_text(["2 × 8", "2 × 8", "2 × 8", "2 × 8", "2 × 4", "2 × 4", "2 × 2", "2 × 2",
                                         "2 × 4", "2 × 4", "2 × 8", "2 × 8"])
    expect_counts(reader, 2, 8, 2)
    reader.select_option("#heads", "8")            # 8 heads of width 1: heads 0, 1, "5 more", 7
    expect(reader.locator("#fig-recipe-flow .flow-name", has_text="5 more")).to_have_count(3)
    expect(reader.locator("#fig-recipe-flow text.flow-name", has_text="head 7")).to_have_count(1)
    expect(reader.locator("#recipe-flow-desc")).to_contain_text("split into 8 heads of width 1")
    expect_counts(reader, 2, 8, 8)
    reader.locator("#add-token").click()           # 3 tokens: n × n weights become 3 × 3
    expect(shapes(reader).first).to_have_text("3 × 8")
    expect(reader.locator("#fig-recipe-flow .flow-box", has_text="weights").first).to_contain_text("3 × 3")
    expect_counts(reader, 3, 8, 8)
    reader.locator("#remove-token").click()
    expect(shapes(reader).first).to_have_text("2 × 8")
    expect_counts(reader, 2, 8, 8)
    expect(reader.locator("#fig-recipe-costs .cost-summary")).to_contain_text(
        "8 heads of width 1: the same cost as one head of width 8")


def test_shared_key_value_heads_shrink_the_keys_and_the_count(reader):
    reader.select_option("#width", "8")
    reader.select_option("#heads", "4")            # width 2 each
    reader.select_option("#projections", "random")  # sharing needs projections (section 6)
    reader.select_option("#kv-heads", "2")         # keys and values: 2 x 2 = 4 wide
    expect(shapes(reader).nth(2)).to_have_text("2 × 4")
    expect(shapes(reader).nth(1)).to_have_text("2 × 8")
    expect_counts(reader, 2, 8, 4, 2)
    expect(reader.locator("#fig-recipe-costs .cost-summary")).to_contain_text(
        "4 heads sharing 2 key/value heads: cheaper than one head of width 8")
