"""Shared fixtures and helpers. tests/unit/: CPython only. tests/browser/: the built site in a browser.

Browser tests get the site built once, served on a loopback port under /lesson/,
in scripts/browsers.py's Chromium. Every page a test opens is guarded (Guard): the test fails
if a request leaves the site's origin, or if a console error, a page error or a
Python traceback shows up (tests that expect some errors name them with
@pytest.mark.expected_console). Unit tests need none of this: playwright is only
touched by the browser fixtures.

The worked example every browser test checks, by hand. Tokens t0 = [1, 0, 0, 1],
t1 = [0.9, 0.1, 1, 0]; head 0 reads slots 0-1, head 1 slots 2-3, each of width 2,
so scores are divided by sqrt(2); the one wide head reads all 4 (divided by 2).
A two-key softmax row is [s(x), 1 - s(x)] with s(x) = 1 / (1 + e^-x), x the gap.
- head 0, row 0: t0.t0 = 1, t0.t1 = 0.9, gap 0.1/sqrt(2) = 0.0707 -> s = 0.5177
  row 1: t1.t0 = 0.9, t1.t1 = 0.82, gap 0.08/sqrt(2) = 0.0566 -> 0.5141 on t0
- head 1: [0, 1] against [1, 0]: dot 1 with itself, 0 with the other,
  gap 1/sqrt(2) = 0.7071 -> 0.6698 on itself
- one head, row 0: 2 vs 0.9, gap 1.1/2 = 0.55 -> 0.6341; row 1: 0.9 vs 1.82,
  gap 0.92/2 = 0.46 -> 0.6130 on itself
The exercise sets t1's time slots to t0's: t1 = [0.9, 0.1, 0, 1]. Head 1 then
sees [0, 1] twice: gap 0, so 0.5 everywhere; head 0 reads slots 0-1, which did
not change. One head: row 0, 2 vs 1.9, gap 0.05 -> 0.5125; row 1, 1.9 vs 1.82,
gap 0.04 -> 0.5100 on t0.
"""

import contextlib
import http.server
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT, ROOT / "site"):  # build.py, and the page's pure packages (page, figures, cells)
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import build  # noqa: E402  (needs the path above)
from scripts import browsers  # noqa: E402  (which Chromium and Firefox: one rule with scripts/test.sh)

# --- the worked numbers (derived in the module docstring) ----------------------------

WORKED_4 = {  # with "4 decimals" checked
    "head 0 weights": [["0.5177", "0.4823"], ["0.5141", "0.4859"]],
    "head 1 weights": [["0.6698", "0.3302"], ["0.3302", "0.6698"]],
    "one head weights": [["0.6341", "0.3659"], ["0.3870", "0.6130"]],
}
WORKED = {  # as a page first prints them: 2 decimals (none of the numbers above ends in 5)
    "head 0 weights": [["0.52", "0.48"], ["0.51", "0.49"]],
    "head 1 weights": [["0.67", "0.33"], ["0.33", "0.67"]],
    "one head weights": [["0.63", "0.37"], ["0.39", "0.61"]],
}
EXERCISE_EDITS = {"token 1 slot 2": "0.0", "token 1 slot 3": "1.0"}
EXERCISE_4 = {
    "head 0 weights": [["0.5177", "0.4823"], ["0.5141", "0.4859"]],
    "head 1 weights": [["0.5000", "0.5000"], ["0.5000", "0.5000"]],
    "one head weights": [["0.5125", "0.4875"], ["0.5100", "0.4900"]],
}
EXERCISE = {  # 0.5125 is s(0.05) = 0.512497...: 0.51
    "head 0 weights": [["0.52", "0.48"], ["0.51", "0.49"]],
    "head 1 weights": [["0.50", "0.50"], ["0.50", "0.50"]],
    "one head weights": [["0.51", "0.49"], ["0.51", "0.49"]],
}
WASM = "**/pyodide.asm.wasm"


def hand_costs(n, d, h, g=None):
    """(parameters, multiply-adds) of self-attention, written from the recipe here, not read from mha.

    n tokens of width d, h query heads of width d/h sharing g key/value heads (None: g = h), so W_K and
    W_V are d x (g d/h) and W_Q, W_O d x d. x W_Q and the output x W_O take n d d each, x W_K and x W_V
    n d (g d/h) each; each head's scores and weighted sums n n (d/h) each.
    """
    g = h if g is None else g
    kv_width = g * d // h
    return 2 * d * d + 2 * d * kv_width, 2 * n * d * d + 2 * n * d * kv_width + 2 * h * n * n * (d // h)

CHROMIUM_CHOICE = browsers.here("chromium")  # Debian's /usr/bin/chromium here; see scripts/browsers.py
CHROMIUM = CHROMIUM_CHOICE.path  # None: Playwright's own Chromium (launched without executable_path)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
# Most browser tests load the page, click and read: their Chromium compiles wasm with V8's baseline compiler
# only. During a load the optimising compiler's work on Pyodide's hot functions was a third of the load's
# CPU (3.2 against 2.1 CPU-s, alternated in one run), and the figure, security and recipe tests took 20% less
# CPU with it off; wasm computes the same on either tier. A module that runs Python for seconds in the tab
# (training, the text model, the 16 x 64 redraws) asks for tiered_browser, V8 as readers have it.
BASELINE_ONLY = "--js-flags=--liftoff-only"
# Pyodide start-up is ~3-4 s here (12 MB from loopback, then booting CPython in wasm),
# but a loaded 2-core CI box can take many times that: wait long, never sleep.
READY_TIMEOUT_MS = 60_000
# What one expect() waits for a redraw: Playwright's 5 s, once missed by a hashchange's notice while the
# other worker's browser and a build shared the two cores (the test passes alone). A wait, not a retry:
# a page that never shows the text still fails, 15 s later.
EXPECT_TIMEOUT_MS = 15_000


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "expected_console(*patterns): console/page errors matching a regex are allowed")
    try:
        from playwright.sync_api import expect
    except ImportError:  # the unit tests need no Playwright
        return
    expect.set_options(timeout=EXPECT_TIMEOUT_MS)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter):
    """Name what failed once more, one short line each, after the short summary, before the totals.

    On CI pytest prints each failure's whole message in the short summary, and a browser assertion's
    message carries the page's accessibility tree: CI's log keeps only its end, where the names were
    out of view. This wrapper runs outside pytest's own summary, so its lines come last.
    """
    yield
    failed = terminalreporter.stats.get("failed", []) + terminalreporter.stats.get("error", [])
    if failed:
        terminalreporter.write_sep("-", "failed, by name")
        for report in failed:
            terminalreporter.write_line(f"{report.when:>8}  {report.nodeid}")
    skipped = terminalreporter.stats.get("skipped", [])
    if skipped:  # a skip is never silent: each test by name, with its reason (e.g. the missing Firefox)
        terminalreporter.write_sep("-", "skipped, by name")
        for report in skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
            terminalreporter.write_line(f"{report.nodeid}  {reason}")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if CHROMIUM_CHOICE.missing:
        pytest.fail(f"no Chromium to test in: {CHROMIUM_CHOICE.missing}", pytrace=False)
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": [*CHROMIUM_ARGS, BASELINE_ONLY]}


@pytest.fixture(scope="session")
def tiered_browser(browser_type, browser_type_launch_args):
    """A Chromium whose V8 optimises hot wasm, as a reader's does: for the modules that compute for seconds in
    the tab, where the baseline-only browser is the slower (a module asks by naming its browser this one)."""
    browser = browser_type.launch(**{**browser_type_launch_args, "args": CHROMIUM_ARGS})
    yield browser
    browser.close()


BUILD = {}  # this process's view of the run's one build: {"out": dist path, "log", "process": ours or None}
SHARED_BUILD = "MHA_SHARED_BUILD"  # under pytest-xdist: the folder the controller made for the one build
BUILD_TIMEOUT_S = 1200  # a clean clone's build trains section 8's model: minutes on a loaded 2-core box


def is_xdist_worker():
    return bool(os.environ.get("PYTEST_XDIST_WORKER"))


def start_build():
    """Start build.py in a process of its own, once per run; built_site waits for it.

    Alone, this process builds into a temp dir of its own. Under pytest-xdist every worker collects every
    test, so each asks for the build: the first to take build.lock in the controller's SHARED_BUILD
    folder starts it, the others find it there. Its exit code lands in build.rc beside dist/ (written by
    the shell around build.py), which is how a process that did not start it learns that it ended.
    """
    if BUILD:
        return
    shared = os.environ.get(SHARED_BUILD) if is_xdist_worker() else None
    folder = Path(shared) if shared else Path(tempfile.mkdtemp(prefix="mha-site-"))
    out = folder / "dist"
    BUILD.update(out=out, log=folder / "build.log", process=None)
    if shared:
        try:
            os.close(os.open(folder / "build.lock", os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return  # another worker started it
    command = [sys.executable, str(ROOT / "build.py"), "build", "--out", str(out)]
    # The log is a file, not a pipe: nothing reads a pipe while the tests run.
    script = 'log=$0; rc=$1; shift; "$@" > "$log" 2>&1; echo $? > "$rc.tmp" && mv "$rc.tmp" "$rc"'
    BUILD["process"] = subprocess.Popen(["sh", "-c", script, str(BUILD["log"]), str(folder / "build.rc"),
                                         *command], cwd=ROOT, start_new_session=True)  # a group: see stop_build
    (folder / "build.pid").write_text(str(BUILD["process"].pid))


def stop_build(folder):
    """Stop a build still running (nobody waited for it, e.g. --collect-only) and remove its folder."""
    pid = folder / "build.pid"
    if pid.exists() and not (folder / "build.rc").exists():
        group = int(pid.read_text())
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)  # the shell, build.py and the node it runs
            if BUILD.get("process") is not None:
                BUILD["process"].wait()  # our own child: reaped, or it lingers as a zombie
            for _ in range(100):  # until the group is gone: a dying build.py still writes files
                os.killpg(group, 0)
                time.sleep(0.05)
    shutil.rmtree(folder, ignore_errors=True)


def build_exit_code():
    """The build's exit code, once build.rc says it ended."""
    rc = BUILD["out"].with_name("build.rc")
    for _ in range(BUILD_TIMEOUT_S * 4):
        if rc.exists():
            if BUILD["process"] is not None:
                BUILD["process"].wait()  # reap our own child
            return int(rc.read_text())
        time.sleep(0.25)
    pytest.fail(f"build.py wrote no exit code in {BUILD_TIMEOUT_S} s", pytrace=False)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """Under pytest-xdist (-n N) the controller makes the one build's folder; the workers inherit its path.

    tryfirst: before xdist's own pytest_sessionstart starts the workers.
    """
    if getattr(session.config.option, "numprocesses", None) and not is_xdist_worker():
        os.environ[SHARED_BUILD] = tempfile.mkdtemp(prefix="mha-site-")


# Seconds a file took in one full run on two workers (2026-12-03, a clean clone): the longest start first in
# each group, so no long file is left to run alone at the end. Only the order depends on these numbers.
SLOW_FILES = {"test_training.py": 195, "test_sweep.py": 76, "test_page_cells.py": 237, "test_page_lesson.py": 161,
              "test_page_training.py": 122, "test_page_figure.py": 107, "test_page_recipe.py": 75,
              "test_page_text.py": 58, "test_page_phone.py": 57, "test_page_security.py": 52}


def pytest_collection_modifyitems(session, config, items):
    """Tests that need the built site run after the others, and the build starts now, beside them.

    On a clean clone the build trains section 8's model and compiles bytecode (about a minute on
    two cores): it then overlaps the unit tests instead of holding up the first browser test.
    Unit tests that read the build's cached training run (figures.prose(), run_data) ask for
    built_site too, so the run is trained once, by the build. (test_training.py's seed 0 reads run_data
    without waiting for the build: run_data's lock lets one of them train it and the other read it.)
    """
    browser = ROOT / "tests" / "browser"  # every browser test serves the site (fixture overrides hide it)
    later = [item for item in items
             if browser in item.path.parents or "built_site" in getattr(item, "fixturenames", ())]
    if later:
        # Whole files, not only tests: pytest-xdist (--dist loadfile) hands a worker a file at a time, so a
        # file with one test that waits for the build held its worker idle through the build (both workers,
        # 80 s of a clean clone's run). Files with no such test go first; in the others, the waiting tests last.
        waiting = set(map(id, later))
        files = {item.path for item in later}
        items[:] = ([item for item in items if item.path not in files]
                    + [item for item in items if item.path in files and id(item) not in waiting] + later)
        first = {}
        for index, item in enumerate(items):
            first.setdefault(item.path, index)
        items.sort(key=lambda item: (item.path in files, -SLOW_FILES.get(item.path.name, 0), first[item.path]))
        start_build()


def pytest_sessionfinish(session):
    """The process that owns the build's folder stops a build nobody waited for and removes it:
    the controller under xdist (after every worker has finished), else this process."""
    if is_xdist_worker():
        return
    if BUILD:
        stop_build(BUILD["out"].parent)
    shared = os.environ.pop(SHARED_BUILD, None)
    if shared:  # (xdist runs no workers for --collect-only: then the folder above is this process's own)
        stop_build(Path(shared))


@pytest.fixture(scope="session")
def built_site():
    """The site, built once per run by the real build.py (started at collection) into a temp dir."""
    start_build()
    code = build_exit_code()
    if code:
        output = BUILD["log"].read_text()[-4000:]
        pytest.fail(f"build.py failed (exit {code}):\n{output}", pytrace=False)
    return BUILD["out"]


@pytest.fixture(scope="session")
def site_url(built_site):
    """The built site served like a static host: loopback, a free port, under /lesson/, plain headers."""
    with build.serving(built_site) as url:
        yield url


@contextlib.contextmanager
def another_origin():
    """A loopback server on another port (another origin): yields (its URL, the paths of the requests it got).

    The security tests let the page and its workers try to reach it; with the CSP nothing ever arrives.
    """
    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append(self.path)
            self.send_response(200)
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()
            self.wfile.write(b"leaked")

        do_POST = do_GET

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


class Guard:
    """Watches one page: requests that leave the site's origin (aborted), console and page errors, tracebacks."""

    def __init__(self, page, site_url):
        self.origin = urlsplit(site_url)[:2]
        self.outside, self.errors = [], []
        page.context.route("**/*", self.route)
        page.on("console", self.on_console)
        page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))
        # A renderer that dies is named as such (Playwright's later errors only say "Target crashed").
        page.on("crash", lambda crashed: self.errors.append(f"renderer crashed: {crashed.url}"))

    def route(self, route):
        if urlsplit(route.request.url)[:2] == self.origin:
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort()

    def on_console(self, message):
        if message.type == "error" or "Traceback" in message.text:
            self.errors.append(f"console {message.type}: {message.text}")

    def problems(self, allowed=()):
        """What went wrong, less the console errors matching an allowed regex."""
        patterns = [re.compile(p) for p in allowed]
        unexpected = [e for e in self.errors if not any(p.search(e) for p in patterns)]
        return [f"request left the origin: {url}" for url in self.outside] + unexpected


@pytest.fixture
def page(page, site_url, request):
    """pytest-playwright's page, guarded: no request may leave the origin, no error may reach the console."""
    guard = Guard(page, site_url)
    yield page
    marker = request.node.get_closest_marker("expected_console")
    problems = guard.problems(marker.args if marker else ())
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def open_page(browser, site_url, fragment="", **context_args):
    """A fresh context and page, guarded, loaded and ready: for pages shared by a module's tests."""
    context = browser.new_context(**context_args)
    page = context.new_page()
    guard = Guard(page, site_url)
    page.goto(site_url + fragment)
    wait_ready(page)
    return page, guard


@pytest.fixture(scope="module")
def lesson(browser, site_url):
    """One loaded, guarded page shared by a module's tests (Pyodide takes seconds to start)."""
    page, guard = open_page(browser, site_url, viewport={"width": 1280, "height": 900})
    yield page
    page.context.close()
    assert not guard.problems(), guard.problems()


@pytest.fixture
def reader(lesson):
    """The shared page at the lesson's default state: "reset the figures", then 2 decimals (a reset keeps the
    reader's choice of decimals)."""
    lesson.locator("#reset-all").click()
    lesson.locator("#digits").uncheck()
    expect_tables(lesson, WORKED)
    return lesson


class Requests:
    """The URLs a page asked for, from now on; of(name): those whose path ends with /name."""

    def __init__(self, page):
        self.urls = []
        page.on("request", lambda request: self.urls.append(request.url))

    def of(self, name):
        return [u for u in self.urls if u.split("?")[0].endswith("/" + name)]


def wait_ready(page):
    """Block until main.py has drawn (body data-python="ready"); see READY_TIMEOUT_MS for why so long."""
    from playwright.sync_api import expect

    expect(page.locator("body")).to_have_attribute("data-python", "ready", timeout=READY_TIMEOUT_MS)


def wait_cells_ready(page):
    """Bring section 5's first cell on screen, as a reader scrolling there does (the cells' own Python, a worker,
    starts only when a cell comes near), then block until that Python is ready: body data-cells="ready"."""
    from playwright.sync_api import expect

    page.locator("[data-cell]").first.scroll_into_view_if_needed()
    expect(page.locator("body")).to_have_attribute("data-cells", "ready", timeout=READY_TIMEOUT_MS)


class HeldRequest:
    """Hold back every request for one file until release(): Python stays 'loading' meanwhile."""

    def __init__(self, page, pattern):
        self.routes = []
        self.page, self.pattern = page, pattern
        self.handler = lambda route: self.routes.append(route)
        page.route(pattern, self.handler)

    def release(self):
        # The request event can reach the test before the route handler has run: let playwright
        # dispatch (wait_for_timeout pumps its events) until the route is in hand.
        for _ in range(READY_TIMEOUT_MS // 50):
            if self.routes:
                break
            self.page.wait_for_timeout(50)
        assert self.routes, "the held file was never requested"
        for route in self.routes:
            route.continue_()
        self.routes.clear()
        self.page.unroute(self.pattern, self.handler)  # later requests (the cells' worker) go straight through


@pytest.fixture
def hold():
    """hold(page, "**/pyodide.asm.wasm") -> HeldRequest; release it to let start-up go on."""
    return HeldRequest


def finished(coroutine):
    """The result of a coroutine that never suspends (a cell that awaits nothing), with no event loop.

    (A browser test session's Playwright may hold this thread's loop, so asyncio.run is not an option.)
    """
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise AssertionError("the coroutine suspended: it awaited something")


def assert_no_axe_violations(page, context=None):
    """axe-core (shipped inside axe-playwright-python) finds no violation on the page, or in context.

    Only violations are gathered node by node (resultTypes): axe still runs every rule, but the passes it
    would list, thousands of table cells here, are not collected and sent back. A scan took a third of
    the time, with the same violations.
    """
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, context=context, options={"resultTypes": ["violations"]})
    assert results.violations_count == 0, results.generate_report()


def assert_no_axe_violations_light_and_dark(page, context=None):
    """As assert_no_axe_violations, in the light scheme and then the dark, on one load (the dark rules of the
    site's style sheets change colours only); the page is left light."""
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
        assert_no_axe_violations(page, context)
    page.emulate_media(color_scheme="light")


# --- reading the page ------------------------------------------------------------------

def field(page, token, slot, label="token"):
    """A grid's field, by its accessible name ('token 1 slot 2')."""
    return page.get_by_role("textbox", name=f"{label} {token} slot {slot}", exact=True)


def weights_table(page, label):
    return page.get_by_role("table", name=label, exact=True)


def exact_values(tables):
    """The exact numbers of live tables (a locator of one or more), in cell order: each data-values' repr texts."""
    return tables.evaluate_all("tables => tables.flatMap((table) => table.dataset.values.split(' '))")


def expect_tables(page, tables):
    """Each named table's body has exactly these rows of printed cells."""
    from playwright.sync_api import expect

    for label, rows in tables.items():
        body = weights_table(page, label).locator("tbody tr")
        expect(body).to_have_count(len(rows))
        for q, row in enumerate(rows):
            expect(body.nth(q).locator("td")).to_have_text(row)
