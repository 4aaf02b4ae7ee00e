"""Sections 1 and 2 in Chromium: the blend tables, the data flow and the cost line following the reader,
and the sequence-length field's share of one Llama-3-8B layer.

One page is shared by most of this module's tests (Pyodide takes seconds to start); each starts
from "reset the figures". The shapes are worked by hand (d/h, kv_heads x d/h); the counts are
mha.attention_costs', whose numbers tests/unit/test_costs.py works by hand, as it does the shares:
1/2561 = 0.04% at 2 tokens, 8/13 = 62% at 8,192, 8193/18433 = 44% there under a causal mask.
"""

import re

from playwright.sync_api import expect

import mha
from conftest import WASM, open_page, wait_ready

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
    """The cost line waits for section 2's question (figures/questions.py): answer it, as a reader would."""
    question = page.locator('fieldset[data-question="recipe"]')
    question.get_by_label("neither: they cost the same").check()
    question.get_by_role("button", name="Check my answer").click()
    expect(page.locator("#q-recipe-answer")).to_have_attribute("data-verdict", "right")


def expect_line(page, tokens, width, heads, kv_heads=None):
    """The cost line shows mha.attention_costs for these sizes, and says whether one wide head costs the same."""
    show_counts(page)
    costs, one = mha.attention_costs(tokens, width, heads, kv_heads), mha.attention_costs(tokens, width, 1)
    line = page.locator("#fig-recipe-line .cost-line")
    expect(line).to_be_visible()
    expect(line).to_contain_text(f"{costs.parameters:,} parameters and {costs.multiply_adds:,} multiply-adds for "
                                 f"{tokens} tokens")
    expect(line).to_contain_text(f"{heads} weight tables of {tokens} × {tokens} instead of 1.")
    if costs.kv_heads == heads:
        expect(line.locator("strong")).to_have_text(f"the same as one head of width {width}")
    else:
        expect(line.locator("strong")).to_have_text(f"fewer than one head of width {width}")
        expect(line).to_contain_text(f"({one.parameters:,} and {one.multiply_adds:,})")


def share(page):
    """The two percentages of #fig-cost-share: every query-key pair, then under a causal mask."""
    return page.locator("#fig-cost-share .cost-share strong")


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
    expect(note).to_have_text("The counts wait for your answer to the question above.")
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
    expect(reader.locator("#fig-cost-share")).to_contain_text("n(n+1)/2 = 33,558,528, 50% of them.")
    field.fill("2")
    expect(share(reader)).to_have_text(["0.04%", "0.03%"])
    expect(reader.locator("#fig-cost-share .cost-share")).to_contain_text("over 2 tokens")
    expect(reader.locator("#fig-cost-share")).to_contain_text("83,918,848 multiply-adds")
    expect(reader).to_have_url(re.compile(r"&len=2&"))
    for text, sentence in [("abc", "sequence length: 'abc' is not a whole number"),
                           ("0", "sequence length must be between 1 and 10000000, got 0"),
                           ("8,192", "sequence length: '8,192' is not a whole number")]:
        field.fill(text)
        expect(error).to_have_text(sentence)
        expect(error).to_have_attribute("role", "alert")
        expect(share(reader)).to_have_text(["0.04%", "0.03%"])   # the last length the field held
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
    expect(reader.locator("#fragment-notice")).to_contain_text("sequence length must be between 1 and 10000000")
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
    for selector in ("#fig-recipe-line .cost-line", "#cost-seq-len", "#fig-cost-share .cost-share",
                     "#fig-cost-share .cost-share-note"):
        box = page.locator(selector).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 375, selector
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.context.close()
    assert not guard.problems(), guard.problems()
