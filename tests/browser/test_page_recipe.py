"""Sections 1 and 2 in Chromium: the blend picture following the reader's three tokens, and the data flow
and counts following the reader.

One page is shared by most of this module's tests (Pyodide takes seconds to start); each test starts
from "reset the figures" (and section 1's own reset). Section 1's numbers are worked by hand below; the
shapes too (d/h, kv_heads x d/h); the counts are mha.attention_costs', whose numbers
tests/unit/test_costs.py works by hand.
"""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

import mha
from conftest import WASM, WORKED, expect_tables, open_page, wait_ready

# --- test data ---------------------------------------------------------------

# Section 1 as it opens: the query [1, 0, 1, 0] against [6, 0, 1, 1], [1, 1, 6, 0] and itself (worked by hand in
# tests/unit/test_recipe_figures.py): head 0 puts 1 / (1 + 2 e^(-5/sqrt 2)) = 0.9449 on token 0 and returns
# [5.7246, 0.0275]; head 1 mirrors it in slots 2-3; the wide head gives tokens 0 and 1 0.4803 each.
BLEND_CONCAT = "Two heads, side by side: [5.7246, 0.0275, 5.7246, 0.0275]"
BLEND_WIDE = "One wide head: [3.4014, 0.4803, 3.4014, 0.4803]"
BLEND_AND = ("token 0 scores 6 in slots 0-1 and 1 in slots 2-3, so 7 in the wide head; token 1 scores 1 and 6, "
             "so 7; token 2 scores 1 and 1, so 2")
# Token 0 slot 0 set to -3. Head 0's dot products become -3, 1, 1: e^(-4/sqrt 2) = 0.059106, so the weights are
# 0.059106 / 2.059106 = 0.0287 on token 0 and 0.4856 on each other; its output, slot 0: -3 x 0.0287 + 0.4856 +
# 0.4856 = 0.8852, slot 1: token 1's 0.4856. Head 1 (slots 2-3) did not change: [5.7246, 0.0275].
EDITED_CONCAT = "Two heads, side by side: [0.8852, 0.4856, 5.7246, 0.0275]"
EDITED_AND = "token 0 scores -3 in slots 0-1 and 1 in slots 2-3, so -2 in the wide head; token 1 scores 1 and 6, so 7"

# (what the reader does, then the boxes' shapes top to bottom: tokens, queries, keys, values,
#  then per drawn head: its slice, its weights, its output; then the concatenation and the output)
DEFAULT_SHAPES = ["2 × 4", "2 × 4", "2 × 4", "2 × 4", "2 × 2", "2 × 2", "2 × 2", "2 × 2", "2 × 2", "2 × 2",
                  "2 × 4", "2 × 4"]


# --- the shared page ------------------------------------------------------------

# --- helpers ---------------------------------------------------------------------

def blend_field(page, token, slot):
    """One of section 1's fields, by its accessible name (section 3's grid has 'token T slot S')."""
    return page.get_by_role("textbox", name=f"section 1 token {token} slot {slot}", exact=True)


def expect_blend(page, concat, sentence):
    """Section 1's picture says this concatenation and this AND sentence (its sentences, not its SVG)."""
    expect(page.locator("#fig-blend .concat-note")).to_contain_text(concat)
    expect(page.locator("#fig-blend .and-note")).to_contain_text(sentence)


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

@pytest.fixture
def blend_reader(reader):
    """The shared page with section 1 back at its own three tokens too (reset-all leaves them alone)."""
    reader.locator("#reset-blend").click()
    expect_blend(reader, BLEND_CONCAT, BLEND_AND)
    return reader


def test_an_edit_redraws_section_1_junk_is_named_and_reset_restores(blend_reader):
    page = blend_reader
    expect(page.locator("#fig-blend .wide-note")).to_contain_text(BLEND_WIDE)
    blend_field(page, 0, 0).fill("-3")
    expect_blend(page, EDITED_CONCAT, EDITED_AND)
    expect(page.locator("#fig-blend-numbers")).to_contain_text("-3.0000")  # the details' scores follow too
    bar = page.locator("#fig-blend rect.blend-bar").first  # token 0's slot 0, now below its baseline
    expect(bar).to_have_attribute("data-value", "-3.0")

    blend_field(page, 0, 0).fill("abc")
    error = page.locator("#blend-error")
    expect(error).to_have_text("token 0 slot 0: 'abc' is not a number")
    expect(error).to_have_attribute("role", "alert")
    expect_blend(page, EDITED_CONCAT, EDITED_AND)  # the last valid numbers stay
    blend_field(page, 2, 1).fill("1e400")
    expect(error).to_have_text("token 2 slot 1: '1e400' is not a finite number")
    blend_field(page, 2, 1).fill("0")
    expect(error).to_have_text("token 0 slot 0: 'abc' is not a number")  # the other field still holds junk
    blend_field(page, 0, 0).fill("-3")
    expect(error).to_be_empty()

    page.locator("#reset-all").click()  # section 3's reset leaves section 1 alone, and section 1's the others
    expect_blend(page, EDITED_CONCAT, EDITED_AND)
    blend_field(page, 1, 2).fill("9")
    page.locator("#reset-blend").click()
    expect_blend(page, BLEND_CONCAT, BLEND_AND)
    expect(blend_field(page, 0, 0)).to_have_value("6")
    expect(blend_field(page, 1, 2)).to_have_value("6")
    expect(error).to_be_empty()
    expect_tables(page, WORKED)


def test_section_1_shows_the_default_before_python_and_keeps_fields_typed_meanwhile(page, site_url, hold):
    """The pre-rendered picture is the default's; fields changed while Python loads are applied once it runs."""
    wasm = hold(page, WASM)
    with page.expect_request(WASM):
        page.goto(site_url)
    expect_blend(page, BLEND_CONCAT, BLEND_AND)
    blend_field(page, 0, 0).fill("-3")
    expect_blend(page, BLEND_CONCAT, BLEND_AND)  # no Python yet
    wasm.release()
    wait_ready(page)
    expect_blend(page, EDITED_CONCAT, EDITED_AND)
    expect(blend_field(page, 0, 0)).to_have_value("-3")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_section_1_fits_a_phone_and_axe_finds_nothing_in_it(browser, site_url, scheme):
    """At 375 px nothing of section 1 sticks out sideways (a table that must scroll sits in a region named so),
    its picture is hidden from screen readers (the sentences say its numbers), and axe finds nothing there."""
    page, guard = open_page(browser, site_url, viewport={"width": 375, "height": 800}, color_scheme=scheme)
    section = page.locator("#why-heads")
    section.locator("details summary").click()
    blend_field(page, 1, 3).fill("-2.5")
    expect(page.locator("#fig-blend .and-note")).to_contain_text("token 1 scores 1 and 6, so 7")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    boxes = section.locator(".figure-panel, svg.blend-picture, table").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().right)")
    assert boxes and max(boxes) <= 375
    region = page.locator("#fig-blend-numbers [role=region]")
    expect(region).to_have_attribute("tabindex", "0")
    expect(page.locator("svg.blend-picture")).to_have_attribute("aria-hidden", "true")
    results = Axe().run(page, context="#why-heads")
    assert results.violations_count == 0, results.generate_report()
    page.context.close()
    assert not guard.problems(), guard.problems()


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
    reader.select_option("#projections", "random")  # sharing needs projections (section 8)
    reader.select_option("#kv-heads", "2")         # keys and values: 2 x 2 = 4 wide
    expect(shapes(reader).nth(2)).to_have_text("2 × 4")
    expect(shapes(reader).nth(1)).to_have_text("2 × 8")
    expect_counts(reader, 2, 8, 4, 2)
    expect(reader.locator("#fig-recipe-costs .cost-summary")).to_contain_text(
        "4 heads sharing 2 key/value heads: cheaper than one head of width 8")
