"""The code cells in the built page, driven like a reader: type, click Run, press keys, read the output.

Cells run in a Python of their own, in a Web Worker (app/cells.py -> worker.mjs
-> cells/worker.py -> cells/run.py); the page ends a run by terminating that worker. The
expected numbers are hand-worked (the worked example in conftest.py) written as literals.
Each test makes several checks on one page: its own when it is about loading (start-up, the
lazy editors, failures), else one page shared by the module and reset between tests (`used`).
A console error or a request leaving the origin fails the test it came in.

The code is edited in CodeMirror (cells/editor.mjs), laid over the pre-rendered
<textarea>, which stays in the DOM (hidden) and holds the code app/cells.py runs: the
tests type into the editor and read the textarea's value. Without the editor's
script, the textarea is the editor again. Each cell's editor is created lazily: when
the cell nears the viewport, or when the reader focuses or presses on the bare
textarea; so a test scrolls to a cell or focuses it before it expects the editor,
as a reader reaches it before reading or typing.
"""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

import build
import mha.training
from cells import view as cell_view
from conftest import (CHROMIUM, CHROMIUM_ARGS, READY_TIMEOUT_MS, WASM, WORKED, Requests,
                      assert_no_axe_violations_light_and_dark, expect_tables, field as grid_field, open_page,
                      wait_cells_ready, wait_ready)

CELLS = Path(__file__).resolve().parents[2] / "site" / "cells" / "sources"

# --- test data ---------------------------------------------------------------

# The worked example, derived in conftest.py (identity projections, scale 1/sqrt(2); one head over 4 slots, scale 1/2).
HEAD_0 = ["[0.5177, 0.4823]", "[0.5141, 0.4859]"]
HEAD_1 = ["[0.6698, 0.3302]", "[0.3302, 0.6698]"]
ONE_HEAD = ["[0.6341, 0.3659]", "[0.3870, 0.6130]"]
EXPECTED_ROWS = {  # cell -> {title line: the rows printed under it}
    "two_heads": {"head 0 (slots 0-1):": HEAD_0, "head 1 (slots 2-3):": HEAD_1},
    "one_head": {"head 0:": HEAD_0, "head 1:": HEAD_1, "one head over all 4 slots:": ONE_HEAD},
}
SECTION_4_HEAD_1 = [["0.50", "0.50"], ["0.50", "0.50"]]  # the live figure's head 1 after section 4's edit
NAME_ERROR = "print('before')\nx = 1\nprint(tokens_typo)\n"  # fails at line 3
RUNAWAY = "print('started')\nwhile True:\n    pass\n"
KEPT_EDIT = "steps = 1  # an edit that must survive the other cells' runs\n"
IN_C = "print('started')\nprint(sum(range(10**11)))\n"  # one long call into C: no Python-level hook can stop it
HOSTILE = {  # cells that must leave the page working, and what their run ends with
    "[0] * 10**11\n": re.compile(r"MemoryError|OverflowError|Stopped after"),  # wasm32: too big to index
    "def f(n):\n    return f(n + 1)\nf(0)\n": re.compile(r"RecursionError|Stopped after"),
    # 100,000 lines print 588,890 characters, 29 times what a cell keeps (cells/run.py's MAX_OUTPUT), yet
    # finish well inside the time limit on a loaded machine (a million did not, there).
    "for i in range(10**5):\n    print(i)\n": re.compile(r"more characters of output not shown"),
}
SHOW_EXERCISE = "show([[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 0.0, 1.0]])  # the exercise (conftest.py)\n"

# The lazy editors (cells/editor.mjs). Without an IntersectionObserver's reports, a cell gets its editor only
# when the reader focuses or presses on its textarea, or when code asks: the tests of those paths use this.
NO_OBSERVER = "window.IntersectionObserver = class { observe() {} unobserve() {} disconnect() {} };"
FOCUS_BEFORE = """area => {  // focus what Tab leaves just before the textarea, without scrolling to it
    const tabbable = [...document.querySelectorAll("a[href], button, input, select, textarea, [tabindex]")]
        .filter(e => e.tabIndex >= 0 && !e.disabled && e.checkVisibility());
    tabbable[tabbable.indexOf(area) - 1].focus({preventScroll: true});
}"""
POINT_IN_TEXT = """(area, [line, column]) => {  // where a character boundary of the bare textarea is on screen
    const style = getComputedStyle(area), box = area.getBoundingClientRect();
    const measure = document.createElement("canvas").getContext("2d");
    measure.font = style.font;
    return {x: box.left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft)
               + column * measure.measureText("0").width,
            y: box.top + parseFloat(style.borderTopWidth) + parseFloat(style.paddingTop)
               + (line + 0.5) * parseFloat(style.lineHeight)};
}"""
SET_CODE = """(area, text) => { area.value = text; area.dispatchEvent(new Event("input")); }"""  # app/cells.py's way (Reset)


def title(name):
    return name.replace("_", " ")


def code(page, name):
    """The cell's editor, by its accessible name: CodeMirror's content, or the textarea while that is all there is
    (before the cell's editor is created, or without the editor's script). Focusing the textarea creates the editor."""
    return page.get_by_role("textbox", name=f"Python cell: {title(name)}", exact=True)


def editor(page, name):
    """The cell's CodeMirror editor (none until the cell nears the viewport or its textarea is focused)."""
    return page.locator(f"#cell-{name.replace('_', '-')} .cm-editor")


def scroll_to(page, name):
    """Bring the cell into view as a reader scrolling to it would: its editor comes."""
    page.locator(f"#cell-{name.replace('_', '-')}").scroll_into_view_if_needed()
    expect(editor(page, name)).to_be_visible()


def source(page, name):
    """The pre-rendered <textarea>: its value is the code a Run sends (the editor keeps it up to date)."""
    return page.locator(f"#cell-{name.replace('_', '-')}-code")


def replace_code(page, name, text):
    """Replace the cell's code as a reader would: select all in the editor, paste (CodeMirror's paste handler).

    Not locator.fill(): on a contenteditable that is execCommand('insertText'), whose line splitting in
    Chromium writes style attributes the CSP then refuses; no reader's paste or typing does that.
    """
    scroll_to(page, name)  # as a reader would: the editor comes
    editor = code(page, name)
    editor.focus()
    editor.press("ControlOrMeta+a")
    editor.evaluate("""(node, text) => {
        const data = new DataTransfer();
        data.setData("text/plain", text);
        node.dispatchEvent(new ClipboardEvent("paste", {clipboardData: data, bubbles: true, cancelable: true}));
    }""", text)
    expect(source(page, name)).to_have_value(text)


def shown_code(page, name):
    """The text the editor shows, line by line (every line of a cell is drawn: they are short), scrolled to."""
    scroll_to(page, name)
    return code(page, name).evaluate("node => [...node.querySelectorAll('.cm-line')].map(l => l.textContent).join('\\n')")


def output(page, name):
    return page.get_by_role("status", name=f"Output of cell: {title(name)}", exact=True)


def error(page, name):
    return page.locator(f"#cell-{name.replace('_', '-')}-error")


def run_button(page, name):
    return page.get_by_role("button", name=f"Run cell: {title(name)}", exact=True)


def run(page, name, text=None):
    """Optionally replace the cell's code, click Run, wait for its status to say how the run ended."""
    if text is not None:
        replace_code(page, name, text)
    run_button(page, name).click()
    expect(status(page, name)).to_have_text(re.compile(r"^(Ran|Failed|Stopped) "), timeout=READY_TIMEOUT_MS)


def status(page, name):
    return page.locator(f"#cell-{name.replace('_', '-')}-status")


def printed_rows(text, heading, count):
    lines = text.splitlines()
    start = lines.index(heading) + 1
    return [line.strip() for line in lines[start:start + count]]


# --- the shared page ------------------------------------------------------------

@pytest.fixture(scope="module")
def loaded(tiered_browser, site_url):
    """One page, both Pythons ready, shared by the tests that begin from a page the reader has used (a load is
    seconds of Pyodide; the tests of start-up, the lazy editors and failures load their own). Its cells train for
    seconds: the optimising V8 of conftest.tiered_browser."""
    page, guard = open_page(tiered_browser, site_url)
    wait_cells_ready(page)
    yield page, guard
    page.context.close()


@pytest.fixture
def used(loaded):
    """The shared page as a reader leaves it after Reset: every cell's Reset pressed (its code, no output, no
    error), the figures reset, the top of the page in view. The page's guard is read after each test, and a
    console error or a request leaving the origin fails the test it came in."""
    page, guard = loaded
    expect(page.locator("[data-cell] button[aria-label^='Stop cell']:enabled")).to_have_count(0)  # no run left
    for name in cell_view.CELLS:
        page.get_by_role("button", name=f"Reset cell: {title(name)}", exact=True).click()
        expect(source(page, name)).to_have_value((CELLS / f"{name}.py").read_text())
        expect(output(page, name)).to_be_empty()
        expect(error(page, name)).to_be_empty()
    page.locator("#reset-all").click()
    expect_tables(page, {"head 1 weights": WORKED["head 1 weights"]})
    page.evaluate("window.scrollTo(0, 0)")
    yield page
    problems = guard.problems()
    guard.outside.clear()
    guard.errors.clear()
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


# --- tests ---------------------------------------------------------------------

def test_the_cells_python_starts_only_as_a_cell_nears_and_each_cell_prints_the_lesson_numbers(page, site_url):
    """A reader who stays in sections 1-4 never pays for a second Python: a second after the page's Python is
    ready no worker runs and body has no data-cells. Run pressed on the first cell scrolls it near: the cells'
    worker starts, once, and the run waits its turn. Then each cell as shipped (by a click, Ctrl+Enter and,
    after a Reset, Shift+Enter): its printed rows are the hand-worked ones. (The training cell's numbers:
    tests/unit/test_cells.py; here it would take seconds.)"""
    page.goto(site_url)
    wait_ready(page)
    page.wait_for_timeout(1000)
    assert page.workers == [] and page.locator("body").get_attribute("data-cells") is None

    run_button(page, "two_heads").click()  # scrolled near, and pressed before the cells' Python is ready
    assert page.locator("body").get_attribute("data-cells") != "ready"  # a Pyodide takes seconds to start
    expect(output(page, "two_heads")).to_contain_text(HEAD_1[1], timeout=READY_TIMEOUT_MS)  # it waited its turn
    assert len(page.workers) == 1
    code(page, "one_head").press("Control+Enter")
    expect(status(page, "one_head")).to_contain_text("show() sent 2 tokens to the figure.")
    page.get_by_role("button", name="Reset cell: two heads", exact=True).click()  # output and status gone...
    expect(output(page, "two_heads")).to_be_empty()
    code(page, "two_heads").press("Shift+Enter")  # ...so only this run can bring them back: the Jupyter and Colab habit
    expect(status(page, "two_heads")).to_have_text(re.compile("^Ran in"))
    for name in ("two_heads", "one_head"):  # the run keys typed nothing
        expect(source(page, name)).to_have_value((CELLS / f"{name}.py").read_text())
    for name, blocks in EXPECTED_ROWS.items():
        expect(error(page, name)).to_be_empty()
        text = output(page, name).text_content()
        for heading, rows in blocks.items():
            assert printed_rows(text, heading, len(rows)) == rows, (name, heading, text)
    assert len(page.workers) == 1


TRAINING_PROGRESS = re.compile(
    r"^step +(\d+): loss \d\.\d{3}, layer 0 previous-token (\d\.\d\d), layer 1 induction (\d\.\d\d)$", re.M)


def test_the_training_cells_invitation_raise_steps_to_300_shows_both_top_scores_climb(used):
    """Section 8: "Raise steps to 300 and watch both climb as the pair forms." Followed as a reader would:
    the steps line changed in the editor, Run. The lines arrive while it runs (the status still says
    Running), one every 20 steps to 300, inside the cell's own limit; from the first line to the last the
    layer 0 previous-token score rises by over 0.2 and the layer 1 induction score passes section 8's line
    (INDUCTION_MIN)."""
    page = used
    shipped = (CELLS / "training.py").read_text()
    assert shipped.count("steps = 60\n") == 1
    replace_code(page, "training", shipped.replace("steps = 60\n", "steps = 300\n"))
    run_button(page, "training").click()
    expect(output(page, "training")).to_contain_text("step  20: loss", timeout=READY_TIMEOUT_MS)
    expect(status(page, "training")).to_have_text(cell_view.running("training"))  # the lines came as it trained
    expect(status(page, "training")).to_have_text(re.compile("^Ran in"),
                                                  timeout=cell_view.time_limit("training") * 1000)
    rows = TRAINING_PROGRESS.findall(output(page, "training").text_content())
    assert [int(step) for step, _, _ in rows] == list(range(20, 301, 20))
    (_, previous_first, induction_first), (_, previous_last, induction_last) = rows[0], rows[-1]
    assert float(previous_last) > float(previous_first) + 0.2, rows
    assert float(induction_first) < mha.training.INDUCTION_MIN <= float(induction_last), rows


# Standard modules outside the page's own zip: wholly (statistics, email) or in a package the page's zip
# also holds part of (json, encodings, importlib.resources: mha.text reads its model through the rest of it),
# whose other modules come from stdlib_rest.zip.
REST_OF_STDLIB = """import statistics, fractions, email.mime.text, json.tool, encodings.cp1252, importlib.resources.simple
print(statistics.median([3, 1, 2]), fractions.Fraction(6, 4), b"\\x80".decode("cp1252"))
modules = statistics, email.mime.text, json.tool, encodings.cp1252, importlib.resources.simple
print(*(m.__file__.split("/")[2] for m in modules))
"""


def test_the_cells_python_fetches_only_the_library_the_page_lacks(browser_type, built_site, tmp_path):
    """The cells' worker starts from the files the page loaded, its standard library included: the server
    sends no file twice, and of the library only page_stdlib.zip and the rest (build.py's stdlib_rest.zip),
    from which a cell imports, also modules of packages split between the two zips, and micropip. A
    profile on disk, as a reader's browser has: a fresh test context keeps its HTTP cache in memory, too
    small for the wasm."""
    served = []  # (file, status), as the server answered: it sees the workers' requests too
    with build.serving(built_site, sent=served) as url, \
            browser_type.launch_persistent_context(tmp_path / "profile", executable_path=CHROMIUM,
                                                   args=CHROMIUM_ARGS) as context:
        page = context.new_page()
        errors = []  # not conftest's Guard: its routing would switch the HTTP cache off, the thing measured here
        page.on("console", lambda message: message.type == "error" and errors.append(message.text))
        page.goto(url)
        wait_ready(page)
        wait_cells_ready(page)
        # Sent with a body (200); a cached file the browser only asks about gets 304 and no body.
        libraries = [file for file, code in served if file.startswith("pyodide/") and file.endswith(".zip")
                     and code == 200]
        assert sorted(libraries) == sorted(f"pyodide/{name}" for name in (build.PAGE_STDLIB, build.STDLIB_REST))
        run(page, "two_heads", REST_OF_STDLIB)
        expect(error(page, "two_heads")).to_be_empty()
        expect(output(page, "two_heads")).to_have_text(
            "2 3/2 \u20ac\n" + " ".join([build.STDLIB_REST] * 5) + "\n")
        run(page, "one_head", "import micropip\nprint(micropip.list()['micropip'].version)\n")  # loaded on demand
        expect(output(page, "one_head")).to_have_text(f"{build.MICROPIP_VERSION}\n")
        downloads = [path for path, code in served if code == 200]
        assert len(downloads) == len(set(downloads)) and {code for _, code in served} <= {200, 304}, served
        assert errors == []


def test_errors_and_a_runaway_leave_cells_edits_and_figure_working(used):
    """A traceback names <cell> and the line; a runaway is stopped at 5 s; edits, the figure and Reset live on."""
    page = used
    replace_code(page, "training", KEPT_EDIT)

    run(page, "two_heads", NAME_ERROR)
    failure = error(page, "two_heads")
    expect(failure).to_have_attribute("role", "alert")
    expect(failure).to_contain_text('File "<cell>", line 3, in <module>')
    expect(failure).to_contain_text("NameError: name 'tokens_typo' is not defined")
    expect(output(page, "two_heads")).to_have_text("before")
    expect(source(page, "two_heads")).to_have_value(NAME_ERROR)  # a failed run keeps the edit

    run(page, "one_head")  # another cell still runs
    expect(output(page, "one_head")).to_contain_text(ONE_HEAD[1])
    expect(error(page, "one_head")).to_be_empty()
    # The figure's own state, half of section 4's edit: typed after one_head's show(), which sets the figure's tokens.
    grid_field(page, 1, 2).fill("0.0")

    run(page, "one_head", RUNAWAY)
    expect(error(page, "one_head")).to_contain_text("it was still running after the 5 s limit")
    expect(output(page, "one_head")).to_have_text("started")  # printed before the stop, kept
    expect(status(page, "one_head")).to_have_text(re.compile(r"^Stopped after 5\.\d s"))  # limit + < 1 s

    grid_field(page, 1, 3).fill("1.0")  # completes section 4's edit: the page answers after all that
    expect_tables(page, {"head 1 weights": SECTION_4_HEAD_1})
    expect(grid_field(page, 1, 2)).to_have_value("0.0")
    expect(source(page, "training")).to_have_value(KEPT_EDIT)
    expect(source(page, "two_heads")).to_have_value(NAME_ERROR)

    page.get_by_role("button", name="Reset cell: two heads", exact=True).click()
    original = (CELLS / "two_heads.py").read_text()
    expect(source(page, "two_heads")).to_have_value(original)
    assert shown_code(page, "two_heads") == original  # the editor shows it too
    expect(status(page, "two_heads")).to_have_text("Reset: the original code is back.")
    expect(error(page, "two_heads")).to_be_empty()
    run(page, "two_heads")
    expect(output(page, "two_heads")).to_contain_text(HEAD_0[0])


def test_a_long_call_into_c_never_freezes_the_figure_and_stop_ends_it(used):
    """sum(range(10**11)) runs in C, where no Python hook can stop it: the page stays live because it is elsewhere.

    The edit below is dispatched and redrawn synchronously while the cell's status still says Running: had
    the cell run on the page's thread, the edit could not even start before the cell ended.
    """
    page = used
    run_button(page, "two_heads").click()
    replace_code(page, "one_head", IN_C)
    run_button(page, "one_head").click()
    expect(output(page, "one_head")).to_have_text("started")  # the cell is inside the long call now
    during = page.evaluate("""() => {
        const set = (label, value) => {
            const field = document.querySelector(`input[aria-label="${label}"]`);
            field.value = value;
            field.dispatchEvent(new Event("input", {bubbles: true}));
        };
        set("token 1 slot 2", "0");
        set("token 1 slot 3", "1");
        const head1 = [...document.querySelectorAll('table[aria-label="head 1 weights"] td')].map(td => td.textContent);
        return {head1, status: document.getElementById("cell-one-head-status").textContent};
    }""")
    assert during["head1"] == ["0.50"] * 4 and during["status"].startswith("Running")
    page.get_by_role("button", name="Stop cell: one head", exact=True).click()
    expect(error(page, "one_head")).to_contain_text("you pressed Stop")
    expect(status(page, "one_head")).to_have_text(re.compile(r"^Stopped after"))
    expect(output(page, "one_head")).to_have_text("started")
    expect(page.get_by_role("button", name="Stop cell: one head", exact=True)).to_be_disabled()
    run(page, "one_head", "print(6 * 7)\n")  # a fresh worker answers the next Run
    expect(output(page, "one_head")).to_have_text("42")


def test_every_run_and_stop_press_is_answered_and_stop_cancels_a_waiting_run(used):
    """Issue 30: Run on a running cell, Run on a waiting one, Stop on a waiting one (also while the cells' Python
    restarts after a Stop): each press says what it did, and a cancelled run never starts."""
    page = used
    stop = lambda name: page.get_by_role("button", name=f"Stop cell: {title(name)}", exact=True)
    replace_code(page, "two_heads", RUNAWAY)
    replace_code(page, "one_head", "print(6 * 7)\n")
    run_button(page, "two_heads").click()
    expect(output(page, "two_heads")).to_have_text("started")
    run_button(page, "two_heads").click()
    expect(status(page, "two_heads")).to_have_text(cell_view.ALREADY_RUNNING)
    run_button(page, "one_head").click()
    expect(status(page, "one_head")).to_have_text(cell_view.QUEUED)
    run_button(page, "one_head").click()
    expect(status(page, "one_head")).to_have_text(cell_view.ALREADY_QUEUED)
    stop("one_head").click()
    expect(status(page, "one_head")).to_have_text(cell_view.CANCELLED)
    expect(stop("one_head")).to_be_disabled()
    stop("two_heads").click()
    expect(status(page, "two_heads")).to_have_text(re.compile(r"^Stopped after"))
    run_button(page, "one_head").click()  # the cells' Python is starting again: the run waits, and Stop is on
    expect(status(page, "one_head")).to_have_text(cell_view.WAITING_FOR_PYTHON)
    stop("one_head").click()
    expect(status(page, "one_head")).to_have_text(cell_view.CANCELLED)
    expect(output(page, "one_head")).to_be_empty()  # the cancelled runs never ran
    run(page, "one_head")
    expect(output(page, "one_head")).to_have_text("42")


@pytest.mark.parametrize("source", HOSTILE, ids=["huge-list", "endless-recursion", "100000-prints"])
def test_a_hostile_cell_leaves_the_page_and_the_next_run_working(used, source):
    page = used
    run(page, "one_head", source)
    expect(page.locator("#cell-one-head")).to_contain_text(HOSTILE[source])
    grid_field(page, 1, 2).fill("0.0")
    grid_field(page, 1, 3).fill("1.0")
    expect_tables(page, {"head 1 weights": SECTION_4_HEAD_1})
    run(page, "two_heads")
    expect(output(page, "two_heads")).to_contain_text(HEAD_1[1])


def test_clicks_in_a_cell_off_its_buttons_do_nothing_once_python_is_ready(used):
    """A click in the code, on the label or on the keys note is not a button: nothing happens (the cell's
    click handler once raised there, on JS null, and the page guard fails on that console error)."""
    page = used
    scroll_to(page, "two_heads")
    cell = page.locator("#cell-two-heads")
    for part in (editor(page, "two_heads").locator(".cm-content"), cell.locator(".cell-title"), cell.locator(".cell-keys")):
        part.click()
    expect(status(page, "two_heads")).not_to_contain_text("Running")
    expect(output(page, "two_heads")).to_be_empty()


def test_keys_tab_moves_on_until_the_reader_types_then_indents_and_escape_then_tab_leaves(used):
    """Arriving by Tab, Tab moves on and the code stays; once the reader types, Tab / Shift+Tab indent and
    dedent; after Esc they move focus out and back: no keyboard trap. The hint says so before the editor."""
    page = used
    editor = code(page, "two_heads")
    original = (CELLS / "two_heads.py").read_text()
    hint = page.locator("#cell-two-heads-tab")
    expect(hint).to_have_text(cell_view.TAB)
    assert hint.bounding_box()["y"] < page.locator("#cell-two-heads-code").evaluate(  # the editor, or the bare textarea
        "area => [...area.closest('[data-cell]').querySelectorAll('.cm-editor, textarea')]"
        ".find((e) => e.getClientRects().length).getBoundingClientRect().top")
    assert "cell-two-heads-tab" in editor.get_attribute("aria-describedby")
    editor.focus()
    page.keyboard.press("Tab")  # arrived, typed nothing: Tab moves on
    expect(run_button(page, "two_heads")).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(editor).to_be_focused()
    expect(source(page, "two_heads")).to_have_value(original)

    editor.press("Control+Home")
    editor.press("x")  # the reader types: from now on Tab indents
    editor.press("Backspace")
    editor.press("Tab")
    expect(source(page, "two_heads")).to_have_value("    " + original)
    editor.press("Shift+Tab")
    expect(source(page, "two_heads")).to_have_value(original)
    expect(editor).to_be_focused()

    editor.press("Escape")
    page.wait_for_timeout(2500)  # longer than CodeMirror's own 2 s: Esc holds until the next key
    page.keyboard.press("Tab")
    expect(run_button(page, "two_heads")).to_be_focused()
    outline = run_button(page, "two_heads").evaluate("b => getComputedStyle(b).outlineStyle")
    assert outline != "none"  # focus is visible

    page.keyboard.press("Shift+Tab")  # back in: typed nothing since, so Shift+Tab moves on again
    expect(editor).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(editor).not_to_be_focused()
    expect(source(page, "two_heads")).to_have_value(original)  # leaving typed nothing

    editor.focus()  # typed, then Esc, then another key: Tab indents again
    editor.press("Control+Home")
    editor.press("x")
    editor.press("Backspace")
    editor.press("Escape")
    editor.press("ArrowDown")
    editor.press("Tab")
    expect(editor).to_be_focused()
    lines = original.split("\n")
    expect(source(page, "two_heads")).to_have_value("\n".join([lines[0], "    " + lines[1], *lines[2:]]))


CSP_VIOLATIONS = """() => {  // every CSP refusal from now on, as "directive: sample", in window.cspViolations
    window.cspViolations = [];
    document.addEventListener("securitypolicyviolation",
        (e) => window.cspViolations.push(`${e.violatedDirective}: ${e.sample || e.blockedURI}`));
}"""


def test_typing_over_a_selection_that_spans_lines_replaces_it_and_the_csp_refuses_nothing(used):
    """Issue 45: Ctrl+A then a typed character, in Chromium, merged the lines itself and set the deleted
    comment's colour on the merged line as a style attribute (style="color: ...; font-style: italic"),
    which style-src 'self' refuses ("Applying inline style violates ..." on the console). Typed over a
    selection, the code is replaced, one undo brings it back, and no CSP violation is reported; the same
    for a selection from the end of one line into the next."""
    page = used
    original = (CELLS / "two_heads.py").read_text()
    assert original.startswith("# "), "the first line must be a coloured token (a comment) to carry a colour"
    page.evaluate(CSP_VIOLATIONS)
    scroll_to(page, "two_heads")
    editor = code(page, "two_heads")
    editor.focus()
    editor.press("ControlOrMeta+a")
    page.keyboard.type("x = 1")
    expect(source(page, "two_heads")).to_have_value("x = 1")
    expect(editor.locator(".cm-line")).to_have_text(["x = 1"])

    editor.press("ControlOrMeta+a")
    page.keyboard.type("x")  # one change, one undo
    expect(source(page, "two_heads")).to_have_value("x")
    editor.press("ControlOrMeta+z")
    expect(source(page, "two_heads")).to_have_value("x = 1")

    source(page, "two_heads").evaluate(SET_CODE, original)  # the code back, as Reset puts it
    editor.press("ControlOrMeta+Home")
    editor.press("End")
    editor.press("Shift+ArrowDown")  # the end of line 1 into line 2
    page.keyboard.type("w")
    first, _, *rest = original.split("\n")
    expect(source(page, "two_heads")).to_have_value(re.compile("^" + re.escape(first + "w")))
    assert source(page, "two_heads").input_value().endswith("\n".join(rest))
    assert page.evaluate("window.cspViolations") == []


NAMED = """e => {  // a control by what a reader would call it (figures redraw their controls, so no marks)
    const cell = e.closest(".cm-editor") ? "editor " + e.getAttribute("aria-label") : "";
    const name = e.type === "radio" ? "radio group " + e.name
        : cell || e.id || e.getAttribute("aria-label") || e.textContent.trim().slice(0, 40);
    return e.tagName.toLowerCase() + ": " + name;
}"""
TABBABLE = f"""() => [...document.querySelectorAll(
        "a[href], button, input, select, textarea, summary, [tabindex], [contenteditable=true]")]
    .filter(e => e.tabIndex >= 0 && !e.disabled && e.checkVisibility() && !e.closest("[inert]"))
    .map({NAMED})"""


def test_tab_from_the_top_reaches_every_control_and_never_changes_a_cells_code(used):
    """Issue 30: a keyboard reader pressing Tab from the top to the end meets every control and leaves every
    cell's code as it was (Tab moves past an editor the reader has not typed in)."""
    page = used
    for section, part in (("trained", "training"), ("text", "text")):  # each enables its buttons once woken,
        page.locator(f"#{section}").scroll_into_view_if_needed()        # as it nears: a disabled one is no stop
        expect(page.locator("body")).to_have_attribute(f"data-{part}", "ready", timeout=READY_TIMEOUT_MS)
    page.locator("#cell-two-heads").scroll_into_view_if_needed()  # the editor's script loads as a cell nears
    expect(page.locator("textarea[data-cell-code][data-editor]")).to_have_count(len(cell_view.CELLS),
                                                                          timeout=READY_TIMEOUT_MS)
    for area in page.locator("textarea[data-cell-code]").all():  # every editor up, so the list below holds them
        area.dispatch_event("cell-editor")
    expect(page.locator(".cm-editor")).to_have_count(len(cell_view.CELLS))
    codes = [area.input_value() for area in page.locator("textarea[data-cell-code]").all()]
    wanted = page.evaluate(TABBABLE)
    # From the top: the focus on a throwaway element at the start of body, which then goes (a blur alone would
    # leave Tab's starting point where the focus was).
    page.evaluate("""() => { const start = document.createElement("span"); start.tabIndex = -1;
        document.body.prepend(start); start.focus(); start.remove(); window.scrollTo(0, 0); }""")
    reached = []
    for _ in range(len(wanted) + 10):
        page.keyboard.press("Tab")
        name = page.evaluate(f"() => [null, document.body].includes(document.activeElement) ? null : ({NAMED})(document.activeElement)")
        if name is None or (reached and name == reached[0]):
            break  # past the last control
        reached.append(name)
    missed = sorted((set(wanted) | set(page.evaluate(TABBABLE))) - set(reached))
    assert not missed, f"Tab never reached {len(missed)} controls: {missed}; it reached {reached}"
    assert [area.input_value() for area in page.locator("textarea[data-cell-code]").all()] == codes


def test_the_editor_highlights_numbers_lines_matches_brackets_and_indents(page, site_url, hold):
    """CodeMirror over the textarea, with Python held back (its wasm never arrives): Python tokens coloured, line
    numbers, the bracket matching the cursor's, and the next line indented after a colon; the textarea follows
    every edit."""
    hold(page, WASM)
    page.goto(site_url)
    cell = page.locator("#cell-two-heads")
    scroll_to(page, "two_heads")
    expect(source(page, "two_heads")).to_be_hidden()  # still there, for app/cells.py and Reset
    original = (CELLS / "two_heads.py").read_text()
    expect(cell.locator(".tok-keyword").first).to_have_text("import")
    expect(cell.locator(".tok-def")).to_have_text(["softmax", "dot"])
    expect(cell.locator(".tok-comment").first).to_have_text(re.compile("^# Two heads"))
    expect(cell.locator(".tok-number").first).to_have_text("1.0")
    colours = cell.locator(".tok-keyword, .tok-comment, .tok-number").evaluate_all(
        "nodes => new Set(nodes.map(n => getComputedStyle(n).color)).size")
    assert colours == 3  # each kind its own colour, from cells.css
    numbers = cell.locator(".cm-lineNumbers .cm-gutterElement:visible")
    expect(numbers.first).to_have_text("1")
    expect(numbers.last).to_have_text(str(original.count("\n") + 1))  # the empty line after the last newline

    replace_code(page, "two_heads", "")
    editor = code(page, "two_heads")
    editor.press_sequentially("for h in range(2):")
    editor.press("Enter")
    editor.press_sequentially("print(h)")
    expect(source(page, "two_heads")).to_have_value("for h in range(2):\n    print(h)")
    expect(cell.locator(".cm-matchingBracket")).to_have_text(["(", ")"])  # the cursor sits after ")"
    editor.press("Enter")
    editor.press("Shift+Tab")
    editor.press_sequentially("x = [1, (2")
    expect(cell.locator(".cm-matchingBracket")).to_have_count(0)
    expect(source(page, "two_heads")).to_have_value("for h in range(2):\n    print(h)\nx = [1, (2")
    expect(page.locator("body")).to_have_attribute("data-python", "loading")


def test_a_cell_gets_its_editor_only_as_it_nears_the_viewport(page, site_url):
    """Loading the editor and creating every editor at load slowed Python's start: through the whole start-up
    editor.js is not even fetched, no cell has an editor, and far below the fold the textarea is the code.
    Scrolled within a viewport height of a cell, its editor is there before the cell shows; a cell still far
    away stays bare until the reader scrolls to it."""
    requests = Requests(page)
    page.goto(site_url)
    area = source(page, "training")  # section 8's, far below section 5's two
    wait_ready(page)
    page.wait_for_timeout(1000)
    assert not requests.of("editor.js")  # not even fetched: its code would compete with Python's start
    expect(page.locator(".cm-editor")).to_have_count(0)
    expect(area).to_be_visible()
    expect(area).to_have_value((CELLS / "training.py").read_text())

    below = page.locator("#cell-two-heads").evaluate("cell => cell.getBoundingClientRect().top + scrollY")
    page.evaluate("top => scrollTo(0, top - 1.5 * innerHeight)", below)  # the cell half a viewport below the fold
    expect(editor(page, "two_heads")).to_have_count(1)
    assert len(requests.of("editor.js")) == 1
    expect(area).to_have_attribute("data-editor", "lazy")  # editor.mjs is running: each cell waits for its editor
    expect(page.locator("#cell-two-heads")).not_to_be_in_viewport()
    expect(editor(page, "training")).to_have_count(0)
    expect(editor(page, "one_head")).to_have_count(0)  # its top is more than half a viewport below two_heads' top
    expect(area).to_have_attribute("data-editor", "lazy")

    area.scroll_into_view_if_needed()
    expect(editor(page, "training")).to_be_visible()
    expect(area).to_be_hidden()
    assert shown_code(page, "training") == (CELLS / "training.py").read_text()

    one_head = source(page, "one_head")  # far from where the page is now, never near: code that needs its editor asks
    expect(editor(page, "one_head")).to_have_count(0)
    assert one_head.evaluate("area => { area.dispatchEvent(new Event('cell-editor'));"
                             " return area.hidden && !!area.parentNode.querySelector('.cm-editor'); }")


def test_tab_or_a_click_on_a_bare_textarea_lands_in_its_editor_with_the_caret(page, site_url, hold):
    """Tab reaches a cell far off screen before its editor exists: the editor comes, in view, focused, with the
    textarea's selection (typing replaces it). A click on a bare textarea puts the caret where it pressed (the
    bare textarea's code sits where the editor's will). Neither needs Python: the click comes before it starts."""
    page.goto(site_url)
    original = (CELLS / "training.py").read_text()
    area = source(page, "training")
    area.evaluate("area => area.setSelectionRange(5, 12)")  # the textarea's selection: "in the "
    area.evaluate(FOCUS_BEFORE)
    expect(area).not_to_be_in_viewport()
    page.keyboard.press("Tab")
    expect(page.locator("#cell-training .cm-content")).to_be_focused()
    expect(area).to_be_hidden()
    expect(editor(page, "training")).to_be_in_viewport()
    page.keyboard.type("X")
    expect(area).to_have_value(original[:5] + "X" + original[12:])

    page.add_init_script(NO_OBSERVER)  # the cells stay bare until pressed on, wherever the page scrolls
    hold(page, WASM)
    page.goto(site_url)
    area = source(page, "one_head")
    area.scroll_into_view_if_needed()
    expect(area).to_be_visible()
    expect(editor(page, "one_head")).to_have_count(0)
    point = area.evaluate(POINT_IN_TEXT, [1, 6.3])  # line 2, between its 6th and 7th characters
    page.mouse.click(point["x"], point["y"])
    expect(page.locator("#cell-one-head .cm-content")).to_be_focused()
    expect(area).to_be_hidden()
    page.keyboard.type("Y")
    lines = (CELLS / "one_head.py").read_text().split("\n")
    expect(area).to_have_value("\n".join([lines[0], lines[1][:6] + "Y" + lines[1][6:], *lines[2:]]))
    expect(page.locator("body")).to_have_attribute("data-python", "loading")


def test_reset_before_a_cell_has_its_editor_shows_when_it_comes(page, site_url):
    """Code set in a bare textarea (app/cells.py's way: value, then "input") is what its editor shows once the reader
    scrolls there; so is Reset's original code, pressed before the cell ever had an editor."""
    page.goto(site_url)
    wait_ready(page)
    edited = "print('set before the editor came')\n"
    source(page, "one_head").evaluate(SET_CODE, edited)
    assert shown_code(page, "one_head") == edited

    area = source(page, "training")  # sections below one_head: still bare
    area.evaluate(SET_CODE, edited)
    # Dispatched, not clicked: a click scrolls the button into view, and the cell's editor would come first.
    page.get_by_role("button", name="Reset cell: training", exact=True).dispatch_event("click")
    expect(status(page, "training")).to_have_text("Reset: the original code is back.")
    expect(area).to_have_value((CELLS / "training.py").read_text())
    expect(editor(page, "training")).to_have_count(0)  # Reset needed no editor
    assert shown_code(page, "training") == (CELLS / "training.py").read_text()


@pytest.mark.expected_console(r"Failed to load resource")
def test_without_the_editor_script_the_textarea_is_the_editor(page, site_url):
    """cells/editor.js refused: the pre-rendered textarea stays, readable, and its keys and Run work as before."""
    page.route("**/cells/editor.js", lambda route: route.abort())
    page.goto(site_url)
    wait_ready(page)
    area = code(page, "two_heads")
    expect(area).to_have_value((CELLS / "two_heads.py").read_text())
    expect(area).to_be_visible()
    assert area.evaluate("node => node.tagName") == "TEXTAREA"
    expect(page.locator(".cm-editor")).to_have_count(0)
    area.fill("print(6 * 7)\n")
    area.press("Control+Enter")
    expect(status(page, "two_heads")).to_have_text(re.compile("^Ran in"), timeout=READY_TIMEOUT_MS)
    expect(output(page, "two_heads")).to_have_text("42")
    page.get_by_role("button", name="Reset cell: two heads", exact=True).click()
    expect(area).to_have_value((CELLS / "two_heads.py").read_text())


@pytest.mark.expected_console(r"Failed to load resource", r"Failed to fetch", r"wasm instantiation failed")
def test_if_python_fails_the_code_stays_readable_and_says_why_run_is_off(page, site_url):
    page.route(WASM, lambda route: route.abort())
    page.goto(site_url)
    expect(page.locator("body")).to_have_attribute("data-python", "failed", timeout=READY_TIMEOUT_MS)
    expect(source(page, "two_heads")).to_have_value((CELLS / "two_heads.py").read_text())
    assert shown_code(page, "two_heads") == (CELLS / "two_heads.py").read_text()  # the editor works without Python
    expect(page.locator("#cell-two-heads-keys")).to_have_text(re.compile("^Python did not start"), use_inner_text=True)
    expect(run_button(page, "two_heads")).to_be_disabled()


@pytest.mark.expected_console(r"Failed to load resource")
def test_if_the_rest_of_the_library_is_missing_run_says_so_and_the_figure_lives(page, site_url):
    """The cells' worker needs stdlib_rest.zip: without it the cells say why they cannot run, naming the file
    and its status, while the page's own Python (which never fetches it) keeps the figure live."""
    page.route(f"**/{build.STDLIB_REST}", lambda route: route.fulfill(status=404, body="not here"))
    page.goto(site_url)
    wait_ready(page)
    page.locator("#cells-title").scroll_into_view_if_needed()  # the cells' worker starts as a cell nears
    expect(page.locator("body")).to_have_attribute("data-cells", "failed", timeout=READY_TIMEOUT_MS)
    run_button(page, "two_heads").click()
    expect(status(page, "two_heads")).to_have_text(
        f"The cells' Python could not start: {build.SUB_PATH}pyodide/{build.STDLIB_REST} answered 404")
    grid_field(page, 1, 2).fill("0.0")  # section 4's exercise: head 1 flattens to 0.5
    grid_field(page, 1, 3).fill("1.0")
    expect_tables(page, {"head 1 weights": SECTION_4_HEAD_1})


def test_show_puts_tokens_into_the_live_figure(used):
    """show(tokens) from a cell redraws the figure; bad tokens give the page's sentence as a cell error."""
    page = used
    expect_tables(page, {"head 1 weights": WORKED["head 1 weights"]})
    run(page, "two_heads", SHOW_EXERCISE)
    expect(status(page, "two_heads")).to_contain_text("show() sent 2 tokens to the figure.")
    expect(grid_field(page, 1, 2)).to_have_value(re.compile(r"^0(\.0)?$"))
    expect_tables(page, {"head 1 weights": SECTION_4_HEAD_1})

    run(page, "one_head", "show([[1.0, 'a']])\n")
    expect(error(page, "one_head")).to_contain_text('File "<cell>", line 1, in <module>')
    expect(error(page, "one_head")).to_contain_text("ValueError: ")
    expect_tables(page, {"head 1 weights": SECTION_4_HEAD_1})  # the figure keeps its state


def test_no_accessibility_violations_in_the_cells_light_or_dark(page, site_url, hold):
    """Before Python: readable code in the editor, Run waiting. axe finds nothing in the cells then (the
    editor's token colours included), nor after a good and a failed run, in either scheme; at 375 px no cell
    sticks out. Where the cells run is said once, over the first; the keys, under each once Python is ready."""
    wasm = hold(page, WASM)
    with page.expect_request(WASM):
        page.goto(site_url)
    # Before Python: the code is readable, Run waits with a hint, the privacy note heads the first cell. Far
    # below the fold the cells still have their bare textareas; one scrolled to has its editor: axe sees both.
    assert shown_code(page, "two_heads") == (CELLS / "two_heads.py").read_text()
    expect(source(page, "training")).to_have_attribute("data-editor", "lazy")
    expect(editor(page, "training")).to_have_count(0)
    expect(source(page, "training")).to_be_visible()
    expect(run_button(page, "two_heads")).to_be_disabled()
    expect(page.locator("#cell-two-heads-keys")).to_have_text(re.compile("^Run works once Python has started"),
                                                              use_inner_text=True)
    expect(page.get_by_text(cell_view.RUNS_HERE)).to_have_count(1)
    expect(page.locator("[data-cell]").first.locator(".cell-head")).to_contain_text(cell_view.RUNS_HERE)
    context = {"include": [[".cell"]]}
    assert_no_axe_violations_light_and_dark(page, context=context)
    wasm.release()
    wait_ready(page)
    expect(page.locator(".cell-keys")).to_have_text([cell_view.keys(name) for name in cell_view.CELLS])
    run(page, "two_heads")
    run(page, "one_head", NAME_ERROR)
    for name in page.locator("[data-cell]").evaluate_all("cells => cells.map(c => c.dataset.cell)"):
        scroll_to(page, name)  # every cell's editor, reached as a reader scrolls down
    expect(page.locator(".cell .cm-editor")).to_have_count(page.locator("textarea[data-cell-code]").count())
    assert_no_axe_violations_light_and_dark(page, context=context)
    page.set_viewport_size({"width": 375, "height": 800})
    widest = page.locator(".cell").evaluate_all("cells => Math.max(...cells.map(c => c.getBoundingClientRect().right))")
    assert widest <= 375


def test_a_cell_reads_the_figures_tokens(used):
    """The other direction: figure_tokens() in a cell returns the tokens the reader typed into the figure."""
    page = used
    grid_field(page, 1, 2).fill("0.0")
    run(page, "two_heads", "print(figure_tokens())\n")
    expect(output(page, "two_heads")).to_have_text("[[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 0.0, 0.0]]")


def test_figure_to_cell_and_back(used):
    """The one_head cell's commented line, uncommented: it reads the figure's tokens, prints, and shows them back."""
    page = used
    grid_field(page, 1, 2).fill("0.0")
    grid_field(page, 1, 3).fill("1.0")  # the exercise's edit (conftest.py), typed into the figure
    source = (CELLS / "one_head.py").read_text().replace("# tokens = figure_tokens()", "tokens = figure_tokens()")
    run(page, "one_head", source)
    text = output(page, "one_head").text_content()
    assert printed_rows(text, "head 1:", 2) == ["[0.5000, 0.5000]", "[0.5000, 0.5000]"]
    assert printed_rows(text, "one head over all 4 slots:", 2) == ["[0.5125, 0.4875]", "[0.5100, 0.4900]"]
    expect(status(page, "one_head")).to_contain_text("show() sent 2 tokens to the figure.")
    expect_tables(page, {"head 1 weights": SECTION_4_HEAD_1})


def test_a_cell_loads_every_seeds_text_model_though_the_page_fetches_them_only_for_section_9(used):
    """The models are not in the wheel (build.py's "later"): the cells' worker unpacks them at its start, so a
    reader's mha.text.load(seed) works before section 9 was ever near; the numbers are the CLI's file's."""
    page = used
    code = "import mha.text\nfor s in mha.text.SEEDS:\n    m = mha.text.load(s)\n    print(s, m.context, m.about['seed'])\n"
    run(page, "two_heads", code)
    expect(output(page, "two_heads")).to_have_text("0 128 0\n1 128 1\n2 128 2")
