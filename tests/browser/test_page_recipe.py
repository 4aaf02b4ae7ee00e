"""Sections 1 and 2 in Chromium: the blend picture following the reader's three tokens, the data flow and
the cost line following the reader, and the sequence-length field's share of one Llama-3-8B layer.

One page is shared by most of this module's tests (Pyodide takes seconds to start); each test starts
from "reset the figures" (and section 1's own reset). Section 1's numbers are worked by hand below; the
shapes too (d/h, kv_heads x d/h); the counts by conftest.hand_costs, from the recipe; the shares in
tests/unit/test_costs.py: 1/2561 = 0.04% at 2 tokens, 8/13 = 62% at 8,192, 8193/18433 = 44% there under a
causal mask.
"""

import re

import pytest
from playwright.sync_api import expect

from conftest import (WASM, WORKED, assert_no_axe_violations_light_and_dark, expect_tables, hand_costs, open_page,
                      wait_ready)

# --- test data ---------------------------------------------------------------

# Section 1 as it opens: the query [1, 0, 1, 0] against [6, 0, 1, 1], [1, 1, 6, 0] and itself (worked by hand in
# tests/unit/test_recipe_figures.py): head 0 puts 1 / (1 + 2 e^(-5/sqrt 2)) = 0.9449 on token 0 and returns
# [5.7246, 0.0275]; head 1 mirrors it in slots 2-3; the wide head gives tokens 0 and 1 0.4803 each.
BLEND_CONCAT = "Head 0's part, [5.72, 0.03], is mostly token 0's own [6, 0] (weight 0.94)."
BLEND_WIDE = "One wide head: [3.40, 0.48, 3.40, 0.48] is an average"
BLEND_AND = "slots 0-1 + slots 2-3 = the wide head's: token 0: 6 + 1 = 7; token 1: 1 + 6 = 7; token 2: 1 + 1 = 2."
# Token 0 slot 0 set to -3. Head 0's dot products become -3, 1, 1: e^(-4/sqrt 2) = 0.059106, so the weights are
# 0.059106 / 2.059106 = 0.0287 on token 0 and 0.4856 on each other; its output, slot 0: -3 x 0.0287 + 0.4856 +
# 0.4856 = 0.8852, slot 1: token 1's 0.4856: no token has half the weight. Head 1 (slots 2-3) did not change.
EDITED_CONCAT = ("Head 0's part, [0.89, 0.49], is an average: no token gets more than half its weight "
                 "(0.49 each to tokens 1 and 2).")
EDITED_AND = "token 0: -3 + 1 = -2; token 1: 1 + 6 = 7"

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
    """The cost line waits for section 2's question (figures/questions.py): answer it, as a reader would."""
    question = page.locator('fieldset[data-question="recipe"]')
    question.get_by_label("neither: they cost the same").check()
    question.get_by_role("button", name="Check my answer").click()
    expect(page.locator("#q-recipe-answer")).to_have_attribute("data-verdict", "right")


def expect_line(page, tokens, width, heads, kv_heads=None):
    """The cost line shows the counts conftest.hand_costs works from the recipe for these sizes, and says whether
    one wide head costs the same."""
    show_counts(page)
    (parameters, multiply_adds), one = hand_costs(tokens, width, heads, kv_heads), hand_costs(tokens, width, 1)
    line = page.locator("#fig-recipe-line .cost-line")
    expect(line).to_be_visible()
    expect(line).to_contain_text(f"{parameters:,} parameters and {multiply_adds:,} multiply-adds for {tokens} tokens")
    expect(line).to_contain_text(f"{heads} weight tables of {tokens} × {tokens} instead of 1.")
    if kv_heads in (None, heads):
        expect(line.locator("strong")).to_have_text(f"the same as one head of width {width}")
    else:
        expect(line.locator("strong")).to_have_text(f"fewer than one head of width {width}")
        expect(line).to_contain_text(f"({one[0]:,} and {one[1]:,})")


def share(page):
    """The two percentages of #fig-cost-share: every query-key pair, then under a causal mask."""
    return page.locator("#fig-cost-share .cost-share strong")


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


def test_section_1_fits_a_phone_and_axe_finds_nothing_in_it_light_or_dark(browser, site_url):
    """At 375 px nothing of section 1 sticks out sideways (a table that must scroll sits in a region named so),
    its picture is hidden from screen readers (the sentences say its numbers), and axe finds nothing there."""
    page, guard = open_page(browser, site_url, viewport={"width": 375, "height": 800})
    section = page.locator("#why-heads")
    section.locator("details summary").click()
    blend_field(page, 1, 3).fill("-2.5")
    expect(page.locator("#fig-blend .and-note")).to_contain_text("token 1: 1 + 6 = 7")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    boxes = section.locator(".figure-panel, svg.blend-picture, table").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().right)")
    assert boxes and max(boxes) <= 375
    region = page.locator("#fig-blend-numbers [role=region]")
    expect(region).to_have_attribute("tabindex", "0")
    expect(page.locator("svg.blend-picture")).to_have_attribute("aria-hidden", "true")
    assert_no_axe_violations_light_and_dark(page, context="#why-heads")
    page.context.close()
    assert not guard.problems(), guard.problems()


def test_the_diagram_and_counts_follow_width_heads_and_tokens(reader):
    expect_line(reader, 2, 4, 2)
    reader.select_option("#width", "8")            # 2 heads of width 4
    expect(shapes(reader)).to_have_text(["2 × 8", "2 × 8", "2 × 8", "2 × 8", "2 × 4", "2 × 4", "2 × 2", "2 × 2",
                                         "2 × 4", "2 × 4", "2 × 8", "2 × 8"])
    expect_line(reader, 2, 8, 2)
    reader.select_option("#heads", "8")            # 8 heads of width 1: heads 0, 1, "5 more", 7
    expect(reader.locator("#fig-recipe-flow .flow-name", has_text="5 more")).to_have_count(3)
    expect(reader.locator("#fig-recipe-flow text.flow-name", has_text="head 7")).to_have_count(1)
    expect(reader.locator("#recipe-flow-desc")).to_contain_text("split into 8 heads of width 1")
    expect_line(reader, 2, 8, 8)
    reader.locator("#add-token").click()           # 3 tokens: n × n weights become 3 × 3
    expect(shapes(reader).first).to_have_text("3 × 8")
    expect(reader.locator("#fig-recipe-flow .flow-box", has_text="weights").first).to_contain_text("3 × 3")
    expect_line(reader, 3, 8, 8)
    reader.locator("#remove-token").click()
    expect(shapes(reader).first).to_have_text("2 × 8")
    expect_line(reader, 2, 8, 8)
    expect(reader.locator("#fig-recipe-line")).to_contain_text(
        "At width 8, 8 heads: 256 parameters and 576 multiply-adds for 2 tokens, the same as one head of width 8")


def test_shared_key_value_heads_shrink_the_keys_and_the_count(reader):
    reader.select_option("#width", "8")
    reader.select_option("#heads", "4")            # width 2 each
    reader.select_option("#projections", "random")  # sharing needs projections (section 6)
    reader.select_option("#kv-heads", "2")         # keys and values: 2 x 2 = 4 wide
    expect(shapes(reader).nth(2)).to_have_text("2 × 4")
    expect(shapes(reader).nth(1)).to_have_text("2 × 8")
    expect_line(reader, 2, 8, 4, 2)
    expect(reader.locator("#fig-recipe-line")).to_contain_text(
        "4 heads sharing 2 key/value heads: 192 parameters and 448 multiply-adds for 2 tokens, fewer than one "
        "head of width 8 (256 and 576), since W_K and W_V are 8 × 4 instead of 8 × 8")


def test_the_cost_line_waits_for_the_check_and_hides_again_on_another_answer(page, site_url):
    """A fresh page: the line gives q-recipe's answer away, so only its note shows until Check."""
    page.goto(site_url)
    wait_ready(page)
    line, note = page.locator("#fig-recipe-line .cost-line"), page.locator('[data-before="recipe"]')
    expect(line).to_be_hidden()
    expect(note).to_have_text("The counts wait for your answer above.")
    show_counts(page)
    expect(line).to_be_visible()
    expect(note).to_be_hidden()
    page.locator('fieldset[data-question="recipe"]').get_by_label("the 2 heads").check()
    expect(line).to_be_hidden()
    expect(page.locator("#fig-cost-share")).to_be_visible()  # the field gives nothing away: always shown


def test_a_typed_sequence_length_shows_the_n_by_n_share_and_junk_shows_the_sentence(reader):
    field, error = reader.locator("#cost-seq-len"), reader.locator("#cost-seq-len-error")
    expect(field).to_have_value("8192")                            # Llama-3-8B's full context
    expect(share(reader)).to_have_text(["62%", "44%"])
    expect(reader.locator("#fig-cost-share")).to_contain_text("of 893,353,197,568 multiply-adds")
    field.fill("2")
    expect(share(reader)).to_have_text(["0.04%", "0.03%"])
    expect(reader.locator("#fig-cost-share .cost-share")).to_contain_text("over 2 tokens")
    expect(reader.locator("#fig-cost-share")).to_contain_text("83,918,848 multiply-adds")
    expect(reader).to_have_url(re.compile(r"&len=2$"))
    for text, sentence in [("abc", "sequence length: 'abc' is not a whole number"),
                           ("0", "sequence length must be between 1 and 10,000,000, got 0"),
                           ("8,19", "sequence length: '8,19' is not a whole number")]:
        field.fill(text)
        expect(error).to_have_text(sentence)
        expect(error).to_have_attribute("role", "alert")
        expect(field).to_have_attribute("aria-invalid", "true")
        expect(share(reader)).to_have_text(["0.04%", "0.03%"])   # the last length the field held
    field.fill("8,192")  # as the page prints it (issue 30)
    expect(error).to_be_empty()
    expect(field).not_to_have_attribute("aria-invalid", "true")
    expect(share(reader)).to_have_text(["62%", "44%"])
    field.fill("9000")
    expect(error).to_be_empty()
    expect(reader.locator("#fig-cost-share")).to_contain_text("Llama-3-8B was built for 8,192 tokens")
    field.fill("abc")
    reader.locator("#reset-all").click()
    expect(field).to_have_value("8192")
    expect(error).to_be_empty()
    expect(share(reader)).to_have_text(["62%", "44%"])


def test_a_shared_link_carries_the_sequence_length_and_a_bad_one_is_refused(reader):
    reader.evaluate("location.hash = '#t=1,0,0,1;0.9,0.1,1,0&h=2&len=2'")
    expect(reader.locator("#cost-seq-len")).to_have_value("2")
    expect(share(reader)).to_have_text(["0.04%", "0.03%"])
    reader.evaluate("location.hash = '#len=0'")
    expect(reader.locator("#link-notice")).to_contain_text("sequence length must be between 1 and 10,000,000")
    expect(reader.locator("#cost-seq-len-error")).to_contain_text("The link's len=0 was not used")
    expect(share(reader)).to_have_text(["0.04%", "0.03%"])  # the figure keeps its state


def test_a_length_typed_while_python_loads_is_kept_and_wins_over_the_link(page, site_url, hold):
    wasm = hold(page, WASM)
    with page.expect_request(WASM):
        page.goto(site_url + "#len=100")
    page.locator("#cost-seq-len").fill("2")
    expect(share(page)).to_have_text(["62%", "44%"])  # no Python yet: the pre-rendered 8,192
    wasm.release()
    wait_ready(page)
    expect(page.locator("#cost-seq-len")).to_have_value("2")
    expect(share(page)).to_have_text(["0.04%", "0.03%"])


def test_the_line_and_the_field_fit_a_phone(browser, site_url):
    """375 px, the longest line (8 heads sharing 1, 'fewer than ...') and the longest share (10,000,000 tokens)."""
    page, guard = open_page(browser, site_url, "#t=1,0,0,0,0,0,0,0;0,1,0,0,0,0,0,0&h=8&kv=1&p=rand&len=10000000",
                            viewport={"width": 375, "height": 800})
    show_counts(page)
    expect(page.locator("#fig-recipe-line")).to_contain_text("8 heads sharing 1 key/value head")
    expect(share(page)).to_have_text(["99.95%", "99.90%"])
    for selector in ("#fig-recipe-line .cost-line", "#cost-seq-len", "#fig-cost-share .cost-share"):
        box = page.locator(selector).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 375, selector
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.context.close()
    assert not guard.problems(), guard.problems()
