"""Section 3's pictures in headless Chromium, worked through as a reader would.

One page is shared by most tests (Pyodide takes seconds to start); each begins
from "reset the figures". Expected weights come from mha in CPython (the worked
example itself is derived by hand in conftest.py).
"""

import re

from playwright.sync_api import expect

import mha
from conftest import EXERCISE, WASM, expect_tables, field, open_page, weights_table

LINES_AND_CELLS = """(id) => [...document.querySelectorAll(`#${id} .head-view`)].map((view) => [
    [...view.querySelectorAll('.attn-line')].map((l) => l.getAttribute('stroke-opacity')),
    [...view.querySelectorAll('table')].flatMap((table) => table.dataset.values.split(' '))])"""
LIT = """() => ({rows: [...document.querySelectorAll('#head-tables table.weights tbody tr.lit')]
                     .map((tr) => tr.sectionRowIndex),
             queries: [...document.querySelectorAll('#head-tables .attn-q.lit')].map((g) => g.dataset.query),
             lighting: document.getElementById('head-tables').classList.contains('lighting')})"""


def expect_lines_mirror_cells(page, element_id="head-tables"):
    for lines, cells in page.evaluate(LINES_AND_CELLS, element_id):
        assert lines == cells and lines


# --- the pictures ----------------------------------------------------------------------

def test_each_head_has_a_picture_whose_lines_are_its_weights_and_move_in_place(reader):
    pictures = reader.locator("#head-tables svg.attn-picture")
    expect(pictures).to_have_count(3)
    expect(pictures.first).to_have_attribute("aria-hidden", "true")
    expect(pictures.first.locator(".attn-line")).to_have_count(4)
    expect_lines_mirror_cells(reader)
    reader.evaluate("document.querySelector('#head-tables .attn-line').dataset.kept = 'yes'")
    field(reader, 1, 2).fill("0")
    field(reader, 1, 3).fill("1")
    expect(weights_table(reader, "head 1 weights").locator("td").first).to_have_text("0.50")
    expect_lines_mirror_cells(reader)
    # patched, not rebuilt: the first line is still the element marked before the edit
    assert reader.evaluate("document.querySelector('#head-tables .attn-line').dataset.kept") == "yes"


def test_cross_attention_tables_get_pictures_too(reader):
    reader.locator("#cross").check()
    expect(reader.locator("#cross-tables svg.attn-picture")).to_have_count(3)
    expect_lines_mirror_cells(reader, "cross-tables")
    reader.locator("#cross").uncheck()


def test_past_eight_tokens_the_pictures_give_way_to_a_note_and_come_back(reader):
    for _ in range(9 - 2):
        reader.locator("#add-token").click()
    expect(weights_table(reader, "head 0 weights").locator("tbody tr")).to_have_count(9)
    expect(reader.locator("#head-tables .attn-line")).to_have_count(0)
    expect(reader.locator("#head-tables .pictures-note")).to_contain_text("up to 8 tokens")
    reader.locator("#remove-token").click()
    expect(reader.locator("#head-tables svg.attn-picture")).to_have_count(3)
    expect(reader.locator("#head-tables .pictures-note")).to_have_count(0)
    expect_lines_mirror_cells(reader)


# --- lighting one query -------------------------------------------------------------------

def test_pointing_at_a_row_header_lights_that_query_everywhere_without_moving_anything(reader):
    reader.locator("#add-token").click()
    header = weights_table(reader, "head 1 weights").locator("tbody th").nth(2)
    header.scroll_into_view_if_needed()
    before = reader.evaluate("document.getElementById('head-tables').getBoundingClientRect().toJSON()")
    header.hover()
    assert reader.evaluate(LIT) == {"rows": [2, 2, 2], "queries": ["2", "2", "2"], "lighting": True}
    expect(reader.locator("#token-grid tbody tr").nth(2)).to_have_class(re.compile(r"\blit\b"))
    after = reader.evaluate("document.getElementById('head-tables').getBoundingClientRect().toJSON()")
    assert after == before  # classes only: no layout jump
    reader.locator("#head-tables .attn-q[data-query='0'] text").first.hover()  # a picture's query
    assert reader.evaluate(LIT)["rows"] == [0, 0, 0]
    reader.mouse.move(5, 5)  # off every token
    assert reader.evaluate(LIT) == {"rows": [], "queries": [], "lighting": False}


def test_focusing_a_token_field_lights_its_row_and_typing_keeps_it_lit(reader):
    reader.mouse.move(1, 1)  # off every table: a pointer left over a row by an earlier test would light it
    field(reader, 1, 0).focus()
    assert reader.evaluate(LIT)["rows"] == [1, 1, 1]
    field(reader, 1, 0).press("ArrowUp")  # the grid's arrow keys move the focus to token 0
    assert reader.evaluate(LIT)["rows"] == [0, 0, 0]
    field(reader, 0, 0).fill("0.5")  # the tables are patched in place: the lit row stays lit
    expect(weights_table(reader, "one head weights")).to_contain_text(
        f"{mha.single_head_attention([[0.5, 0, 0, 1], [0.9, 0.1, 1, 0]])[1][0][0]:.2f}")
    assert reader.evaluate(LIT)["rows"] == [0, 0, 0]
    reader.locator("#reset-all").focus()
    assert reader.evaluate(LIT)["lighting"] is False


def test_lighting_works_before_python_has_loaded(page, site_url, hold):
    wasm = hold(page, WASM)
    with page.expect_request(WASM):
        page.goto(site_url)
    expect(page.locator("body")).to_have_attribute("data-python", "loading")
    weights_table(page, "head 0 weights").locator("tbody th").nth(1).hover()
    assert page.evaluate(LIT) == {"rows": [1, 1, 1], "queries": ["1", "1", "1"], "lighting": True}
    wasm.release()


# --- an old link -------------------------------------------------------------------------

def test_an_old_link_with_a_temperature_opens_its_tokens_and_says_nothing(reader):
    """The temperature slider was cut (issue 23); links written before still carry temp=, which is dropped."""
    reader.evaluate("location.hash = '#t=1,0,0,1;0.9,0.1,0,1&h=2&temp=0.2'")
    expect_tables(reader, EXERCISE)  # the link's tokens: the exercise's, worked by hand
    expect(reader.locator("#fragment-notice")).to_be_empty()
    expect(reader.locator("#temperature")).to_have_count(0)
    expect(reader).not_to_have_url(re.compile("temp="))  # the page writes the link again, without it


def test_phone_width_with_eight_tokens_and_pictures_has_no_sideways_scroll_light_or_dark(browser, site_url):
    tokens = ";".join(",".join(str((t + s) % 3 - 1) for s in range(4)) for t in range(8))
    page, guard = open_page(browser, site_url, f"#t={tokens}&h=2", viewport={"width": 375, "height": 800})
    expect(page.locator("#head-tables svg.attn-picture")).to_have_count(3)
    for scheme, head_1 in (("light", "rgb(213, 94, 0)"), ("dark", "rgb(230, 159, 0)")):  # head 1's colour
        page.emulate_media(color_scheme=scheme)
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        assert page.evaluate("getComputedStyle(document.querySelector('.head-1 .attn-line')).stroke") == head_1
    page.context.close()
    assert not guard.problems(), guard.problems()
