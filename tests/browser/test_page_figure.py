"""The built page in headless Chromium: start-up, pre-rendered figures, failure, live redraw.

Served from loopback under /lesson/ with every other host blocked (conftest's
page fixture fails a test on any outside request, console error or traceback).
Expected numbers: the worked example and the exercise, derived by hand in conftest.py.
"""

import re

import pytest
from playwright.sync_api import expect

import build
from conftest import (EXERCISE, EXERCISE_EDITS, READY_TIMEOUT_MS, WASM, WORKED, Requests, assert_no_axe_violations,
                      expect_tables, field, wait_cells_ready, wait_ready, weights_table)

# --- tests ---------------------------------------------------------------------

def test_start_up_shows_each_stage_in_turn_and_is_ready_offline_with_the_worked_numbers(page, site_url):
    """The progress names each stage as it comes, and none is skipped: download, start, draw, then done. All
    outside traffic is blocked (conftest); Python still starts and redraws the same numbers."""
    page.add_init_script("""
        window.stages = [];
        new MutationObserver((changes) => {
          for (const change of changes) {
            const item = change.target;
            if (item.dataset?.stage && item.dataset.state === "current") window.stages.push(item.dataset.stage);
          }
        }).observe(document, { attributes: true, attributeFilter: ["data-state"], subtree: true });""")
    page.goto(site_url)
    wait_ready(page)
    assert page.evaluate("window.stages") == ["download", "start", "draw"]
    expect(page.locator('#py-status [data-stage="download"]')).to_have_attribute("data-state", "done")
    expect(page.locator("#py-status [data-stage]")).to_have_count(3)
    expect_tables(page, WORKED)
    expect(page.locator("#py-failed")).to_be_hidden()
    expect(page.locator("#py-stage-note")).to_have_text("Python is running: edit any number.")


def test_prerendered_figures_show_before_python_and_axe_finds_nothing_before_or_after_it(page, site_url, hold):
    """With the runtime held back, the page is 'loading', shows its stages and the correct tables. axe-core
    finds nothing then, nor once Python has started."""
    wasm = hold(page, WASM)
    with page.expect_request(WASM):
        page.goto(site_url)
    expect(page.locator("body")).to_have_attribute("data-python", "loading")
    expect(page.locator("#py-progress")).to_be_visible()
    expect(page.locator('#py-status [data-stage="download"]')).to_have_attribute("data-state", "current")
    expect_tables(page, WORKED)
    expect(page.get_by_role("table", name="head 0 weights")).to_have_attribute(
        "data-values", re.compile(r"^0\.5176703075150118 "))
    assert_no_axe_violations(page)
    wasm.release()
    wait_ready(page)
    expect(page.locator("#py-progress")).to_be_hidden()
    assert_no_axe_violations(page)


@pytest.mark.expected_console(r"Failed to load resource", r"Failed to fetch", r"wasm instantiation failed")
def test_failed_runtime_keeps_the_lesson_readable(page, site_url):
    """No pyodide.asm.wasm: the page says so in a sentence, the text and pre-rendered tables remain."""
    page.route(WASM, lambda route: route.abort())
    page.goto(site_url)
    expect(page.locator("body")).to_have_attribute("data-python", "failed", timeout=READY_TIMEOUT_MS)
    alert = page.locator("#py-failed")
    expect(alert).to_be_visible()
    expect(alert).to_have_attribute("role", "alert")
    expect(alert).to_contain_text("The live figures could not start")
    expect(page.locator("#py-status")).to_be_hidden()
    expect(page.get_by_role("heading", name="3. Two tokens you can check with a pencil")).to_be_visible()
    expect_tables(page, WORKED)
    expect(field(page, 0, 0)).not_to_be_editable()  # nothing would answer an edit


@pytest.mark.expected_console(r"Traceback", r"Failed to load resource: the server responded with a status of 404",
                              r"page error: the page's Python files could not be fetched: "
                              r"/lesson/wheels/\w+/mha-[0-9.]+-py3-none-any\.whl answered 404")
@pytest.mark.parametrize("file, response", [
    ("main.py", {"status": 200, "body": "raise RuntimeError('broken glue')"}),
    ("mha-*.whl", {"status": 404, "body": "gone"}),
], ids=["python-error", "missing-wheel"])
def test_later_start_up_failures_also_reach_failed(page, site_url, file, response):
    """A Python error in the page's code, or an mha wheel the page cannot fetch, ends in 'failed' too; a
    missing wheel is named in the sentence."""
    page.route(f"**/{file}", lambda route: route.fulfill(**response))
    page.goto(site_url)
    expect(page.locator("body")).to_have_attribute("data-python", "failed", timeout=READY_TIMEOUT_MS)
    expect(page.locator("#py-failed")).to_contain_text("The live figures could not start")
    if file.endswith(".whl"):
        wheel = f"mha-{build._project()['version']}-py3-none-any.whl"
        expect(page.locator("#py-failed")).to_contain_text(f"{wheel} answered 404")
    expect(page.locator("#py-failed")).not_to_contain_text("Traceback")
    expect_tables(page, WORKED)


def test_edit_made_while_loading_is_applied_when_ready(page, site_url, hold):
    """Typing before Python runs changes nothing at first; once ready, the figures show the edit."""
    wasm = hold(page, WASM)
    with page.expect_request(WASM):
        page.goto(site_url)
    for name, value in EXERCISE_EDITS.items():
        page.get_by_role("textbox", name=name, exact=True).fill(value)
    expect_tables(page, WORKED)  # no Python yet: still the pre-rendered state
    wasm.release()
    wait_ready(page)
    expect_tables(page, EXERCISE)


def test_controls_changed_while_loading_are_kept_and_applied_when_ready(page, site_url, hold):
    """Pickers and switches moved before Python runs do nothing at first; once ready, each is applied as if it
    changed then (nothing quietly reverts): one head of width 8, causal, as the tables then show."""
    wasm = hold(page, WASM)
    with page.expect_request(WASM):
        page.goto(site_url)
    page.locator("select#heads").select_option("1")
    page.locator("select#width").select_option("8")
    page.locator("#causal").check()
    expect_tables(page, WORKED)  # no Python yet: still the pre-rendered state
    wasm.release()
    wait_ready(page)
    expect(page.locator("select#heads")).to_have_value("1")
    expect(page.locator("select#width")).to_have_value("8")
    expect(page.locator("#causal")).to_be_checked()
    expect(page.get_by_role("textbox", name="token 1 slot 7", exact=True)).to_be_visible()
    # causal: token 0 sees only itself, so its row of the one head is [1, masked]
    expect(weights_table(page, "head 0 weights").locator("tbody tr").first.locator("td")).to_have_text(
        ["1.00", "masked"])


def test_a_control_changed_while_loading_wins_over_a_shared_link(page, site_url, hold):
    """The link says 4 heads of width 8; the reader picks 1 head before Python runs: 1 head it is, width 8 kept."""
    wasm = hold(page, WASM)
    with page.expect_request(WASM):
        page.goto(site_url + "#t=1,0,0,0,0,0,0,0;0,1,0,0,0,0,0,0&h=4")
    page.locator("select#heads").select_option("1")
    wasm.release()
    wait_ready(page)
    expect(page.locator("select#heads")).to_have_value("1")
    expect(page.locator("select#width")).to_have_value("8")
    expect(weights_table(page, "head 1 weights")).to_have_count(0)


def test_every_edit_redraws_and_bad_input_is_named(reader):
    """An edit redraws all heads; a bad number shows mha's sentence and keeps the last valid figures."""
    page = reader  # the shared page, reset
    for name, value in EXERCISE_EDITS.items():
        page.get_by_role("textbox", name=name, exact=True).fill(value)
    expect_tables(page, EXERCISE)

    field(page, 0, 0).fill("abc")
    error = page.locator("#grid-error")
    expect(error).to_have_text("token 0 slot 0: 'abc' is not a number")
    expect(error).to_have_attribute("role", "alert")
    expect_tables(page, EXERCISE)

    field(page, 0, 0).fill("1.0")
    expect(error).to_be_empty()
    expect_tables(page, EXERCISE)


def test_reader_input_is_shown_as_text_never_markup(reader):
    """Markup typed into a field comes back in the error sentence as text; no element is created."""
    page = reader  # the shared page, reset
    field(page, 1, 1).fill('<img src=x onerror="document.title=1">')
    expect(page.locator("#grid-error")).to_contain_text("<img src=x")
    expect(page.locator("#grid-error img")).to_have_count(0)
    expect(page).not_to_have_title("1")


@pytest.mark.expected_console(r"WebAssembly is not defined")  # the runtime trying anyway
def test_browser_without_webassembly_says_so_and_keeps_the_lesson(page, site_url):
    """A browser with WebAssembly switched off: a sentence naming it at once, the lesson still readable."""
    page.add_init_script("delete window.WebAssembly")
    page.goto(site_url)
    expect(page.locator("body")).to_have_attribute("data-python", "failed", timeout=READY_TIMEOUT_MS)
    expect(page.locator("#py-failed")).to_contain_text("this browser has no WebAssembly")
    expect(page.get_by_role("heading", name="3. Two tokens you can check with a pencil")).to_be_visible()
    expect_tables(page, WORKED)


def test_mha_comes_from_its_wheel_without_micropip_on_a_first_and_a_repeat_visit(page, site_url):
    """The page unpacks the content-addressed mha wheel itself (pyscript.json's archives): micropip is never
    fetched, on a first visit or a repeat one, and the numbers are drawn both times."""
    requests = Requests(page)
    page.goto(site_url)
    wait_ready(page)
    wait_cells_ready(page)  # the cells' worker unpacks the same wheel
    mha_wheel = f"mha-{build._project()['version']}-py3-none-any.whl"
    assert not requests.of(build.MICROPIP_WHEEL) and requests.of(mha_wheel)
    requests.urls.clear()
    page.reload()
    wait_ready(page)
    assert not requests.of(build.MICROPIP_WHEEL)
    expect_tables(page, WORKED)


def test_switching_projections_keeps_a_field_the_reader_is_fixing(reader):
    """Random projections change the grid's header (no slot bands), not its fields: 'abc' and its sentence stay."""
    page = reader  # the shared page, reset
    field(page, 0, 0).fill("abc")
    expect(page.locator("#grid-error")).to_have_text("token 0 slot 0: 'abc' is not a number")
    page.locator("#projections").select_option("random")
    expect(page.locator("#token-grid-head")).not_to_contain_text("head 1")
    expect(field(page, 0, 0)).to_have_value("abc")
    expect(page.locator("#grid-error")).to_have_text("token 0 slot 0: 'abc' is not a number")
