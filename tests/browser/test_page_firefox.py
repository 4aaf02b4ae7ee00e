"""The built page in a second engine, Firefox, driven by puppeteer-core over WebDriver BiDi.

Playwright cannot drive a stock Firefox, so firefox_smoke.mjs (next to this file) does the
driving: one headless Firefox launch with a fresh profile for the whole module, seven checks in turn
on one loaded page and the two that need a load of their own (a link, a blocked start-up) each in its
own browser context, one JSON line of results. This file runs it once against conftest's
site_url (the site built and served under /lesson/ on loopback) and turns each check into a
test. Like the Chromium tests, every check fails if a request leaves the origin or an error
reaches the console (a check that must cause errors names them, by exact pattern).

Which Firefox: scripts/browsers.py decides (MHA_FIREFOX, else Debian's /usr/bin/firefox-esr, else
the build puppeteer-core pins, downloaded into .cache/browsers/), and the script gets its path in
MHA_FIREFOX. Missing prerequisites (node, node_modules/puppeteer-core, the Firefox) fail loudly:
scripts/test.sh installs all three. The one exception: off Debian, where no Firefox could be
downloaded, the tests skip, each named with the reason in the summary (conftest.py's
"skipped, by name"). On Debian with apt the Firefox is installed, so there they never skip.
"""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import mha.text_lesson as lesson
from conftest import EXERCISE, READY_TIMEOUT_MS, WORKED, WORKED_4, another_origin
from scripts import browsers
from text_cli import cli, shown

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SMOKE = HERE / "firefox_smoke.mjs"
PUPPETEER = ROOT / "node_modules" / "puppeteer-core" / "package.json"
# Nine checks on three page loads, each waiting at most 60 s per condition (Pyodide starts in ~3-5 s
# here). The limit only stops a hung browser from hanging the suite.
RUN_TIMEOUT_S = 600

# What the page must show, handed to firefox_smoke.mjs (MHA_SMOKE_EXPECTED): conftest.py's hand-worked numbers, and
# the "two heads" cell's print of them (a title line per head, then its rows to 4 decimals).
SMOKE_EXPECTED = {
    "ready_timeout_ms": READY_TIMEOUT_MS,
    "tokens": {0: [1, 0, 0, 1], 1: [0.9, 0.1, 1, 0]},  # the worked example, as the grid shows it
    "head_0": WORKED["head 0 weights"], "head_1": WORKED["head 1 weights"],
    "flat": EXERCISE["head 1 weights"],
    "two_heads_prints": [line for h, slots in ((0, "0-1"), (1, "2-3"))
                         for line in (f"head {h} (slots {slots}):",
                                      *(f"[{', '.join(row)}]" for row in WORKED_4[f"head {h} weights"]))],
}

# Errors a check is expected to cause, by exact text (anything else fails the test).
EXPECTED_CONSOLE = {
    # The aborted pyodide.asm.wasm fetch rejects inside the runtime's loader, and the rejection
    # reaches the page unhandled: Firefox's wording of Chromium's "Failed to fetch" (which
    # tests/browser/test_page_figure.py allows for the same start-up).
    "failed": [r"page error: TypeError: NetworkError when attempting to fetch resource\."],
    # Firefox reports each refused request as a page error (Chromium does not): the one the check makes.
    "network": [r"page error: Content-Security-Policy: The page’s settings blocked the loading of a resource "
                r"\(connect-src\) at http://127\.0\.0\.1:\d+/fetch because it violates the following directive: "
                r"“connect-src 'self'”"],
}


def _prerequisites():
    """Why the smoke suite cannot run here, or an empty list."""
    missing = []
    if shutil.which("node") is None:
        missing.append("node is not on PATH (install Node 20)")
    if not PUPPETEER.is_file():
        missing.append(f"{PUPPETEER.parent} is missing (run `bash scripts/test.sh`, which runs npm ci)")
    else:
        pinned = json.loads((ROOT / "package.json").read_text())["devDependencies"]["puppeteer-core"]
        installed = json.loads(PUPPETEER.read_text())["version"]
        if installed != pinned:
            missing.append(f"node_modules has puppeteer-core {installed}, package.json pins {pinned} (run npm ci)")
    return missing


@pytest.fixture(scope="module")
def firefox(site_url):
    """{check name: result} from one run of firefox_smoke.mjs against the served site."""
    choice = browsers.here("firefox")
    if choice.skip:  # only off Debian, and only when no Firefox could be had: never on Debian with apt
        pytest.skip(choice.missing)
    missing = _prerequisites() + ([choice.missing] if choice.missing else [])
    if missing:
        pytest.fail("the Firefox smoke suite cannot run:\n  " + "\n  ".join(missing), pytrace=False)
    try:
        with another_origin() as (other, seen):
            env = {**os.environ, "MHA_FIREFOX": choice.path, "MHA_OTHER_ORIGIN": other,
                   "MHA_SMOKE_EXPECTED": json.dumps(SMOKE_EXPECTED)}
            run = subprocess.run(["node", str(SMOKE), site_url], cwd=ROOT, capture_output=True, text=True,
                                 timeout=RUN_TIMEOUT_S, env=env)
            OTHER_ORIGIN_SAW.extend(seen)
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"firefox_smoke.mjs still running after {RUN_TIMEOUT_S} s\n"
                    f"stderr:\n{error.stderr or ''}", pytrace=False)
    lines = run.stdout.strip().splitlines()
    if run.returncode != 0 or not lines:
        pytest.fail(f"firefox_smoke.mjs exited with {run.returncode}\nstdout:\n{run.stdout}\n"
                    f"stderr:\n{run.stderr}", pytrace=False)
    return json.loads(lines[-1])["checks"]


OTHER_ORIGIN_SAW = []  # what the "network" check's other origin received: must stay empty


def check(firefox, name):
    """Fail with the check's own words unless it passed with no outside request and no stray error."""
    result = firefox[name]
    allowed = [re.compile(pattern) for pattern in EXPECTED_CONSOLE.get(name, ())]
    unexpected = [e for e in result["console_errors"] if not any(p.fullmatch(e) for p in allowed)]
    problems = ([] if result["ok"] else [f"check failed: {result['detail']}"])
    problems += [f"request left the origin: {url}" for url in result["outside_requests"]]
    problems += unexpected
    if problems:
        pytest.fail(f"Firefox, check {name!r}:\n" + "\n".join(problems), pytrace=False)
    return result


def test_firefox_load_reaches_ready_with_no_console_error_or_outside_request(firefox):
    """The page loads and Python starts (<body data-python="ready">); the tables show the worked example."""
    result = check(firefox, "ready")
    assert result["requests"] > 0  # the request listener saw the load, so "no outside request" means something


def test_firefox_edit_of_token_one_time_slots_flattens_head_one(firefox):
    """Typing token 0's time slots into token 1's makes head 1's table 0.5000 in every cell."""
    check(firefox, "edit")


def test_firefox_two_heads_cell_runs_and_prints_both_heads(firefox):
    """Run on the "two heads" cell prints each head's rows, as CPython prints them."""
    check(firefox, "cell")


def test_firefox_tab_moves_past_an_untouched_editor_and_indents_once_the_reader_types(firefox):
    """Issue 30: Tab is no trap in the code editors, in Firefox too."""
    check(firefox, "keyboard")


def test_firefox_typing_over_select_all_replaces_the_code_and_the_csp_refuses_nothing(firefox):
    """Issue 45: Ctrl+A in an editor, then typing, in Firefox too: the code is replaced, no CSP violation."""
    check(firefox, "retype")


def test_firefox_a_link_with_one_bad_key_keeps_the_others_and_names_it(firefox):
    """Issue 30's link in Firefox: h=3 refused at the top of the page, random projections and 50 distractors kept."""
    check(firefox, "link")


def test_firefox_cells_fetch_to_another_origin_is_refused_in_its_worker_and_said(firefox):
    """The cells' worker starts from a blob: URL, so the page's connect-src holds there: nothing reaches the other
    server, and the cell says why."""
    check(firefox, "network")
    assert OTHER_ORIGIN_SAW == [], f"the other origin received {OTHER_ORIGIN_SAW}"


def test_firefox_text_field_redraws_a_guess_and_a_switch_works(firefox):
    """Section 9 in Firefox: a character typed at the end adds its guess, switching layer 0 head 1 off draws it
    off, and seed 1 reads with its own model; the guesses shown are the CLI's (python -m mha.text TEXT --json
    [--off 0.1] [--seed 1])."""
    shown_guesses = json.loads(check(firefox, "text")["detail"])
    assert shown_guesses["typed"] == [shown(g) for g in cli(lesson.DEFAULT_PROMPT + "a")["guess"]]
    assert shown_guesses["off"] == [shown(g) for g in cli(lesson.DEFAULT_PROMPT + "a", off=[(0, 1)])["guess"]]
    seed_1 = cli(lesson.DEFAULT_PROMPT + "a", off=[(0, 1)], seed=1)["guess"]
    assert shown_guesses["seed"] == [shown(g) for g in seed_1] != shown_guesses["off"]


def test_firefox_blocked_wasm_ends_in_the_failure_alert(firefox):
    """With pyodide.asm.wasm aborted, the page reaches data-python="failed" and shows #py-failed."""
    check(firefox, "failed")
