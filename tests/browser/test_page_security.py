"""The Content-Security-Policy makes "nothing is sent to a server" a rule the browser enforces.

A second loopback server plays "another origin": if the page could reach it, it would
see the request. The route guard in conftest.py would also catch a request, so these
tests check the server's log: with the CSP, the browser never sends one.

The workers (the cells' and the training's) start from blob: URLs (boot.js's mhaWorker), so the
page's policy holds in them too: a worker started from a same-origin URL would take its policy
from that file's response headers, and a static host sends none. The cell tests below run each way
a reader's code could reach the network and check three logs: the other server's, the test's own
router (every request of the page and its workers), and its WebSocket router (which the first
does not see).
"""

import re

import pytest
from playwright.sync_api import expect

import build
from conftest import (EXERCISE, READY_TIMEOUT_MS, another_origin, expect_tables, field, open_page, wait_cells_ready,
                      wait_ready)


@pytest.fixture
def other_origin():
    with another_origin() as served:
        yield served


def test_built_page_carries_the_policy(built_site):
    head = (built_site / "index.html").read_text().split("</head>")[0]
    assert f'<meta http-equiv="Content-Security-Policy" content="{build.CSP}">' in head
    for directive in ("default-src 'self'", "connect-src 'self'", "worker-src blob:", "object-src 'none'"):
        assert directive in build.CSP
    assert "http" not in build.CSP and "*" not in build.CSP  # no other origin is named anywhere


@pytest.mark.expected_console(r"Content Security Policy", r"Failed to fetch", r"Refused to")
def test_an_inline_script_and_a_fetch_beacon_or_image_to_another_origin_are_refused(page, site_url, other_origin):
    """An injected inline <script> does not run: only files from this origin execute. A fetch, a beacon and an
    image to another origin are refused by the policy, and that server receives nothing. (One load for both.)"""
    url, seen = other_origin
    # conftest's guard aborts every request to another origin; let this one through, so
    # only the CSP stands between the page and the other server (whose log we read).
    page.route(f"{url}/**", lambda route: route.continue_())
    page.goto(site_url)
    wait_ready(page)
    ran = page.evaluate("""() => new Promise((done) => {
        window.__ran = false;
        document.addEventListener("securitypolicyviolation", () => done(window.__ran), { once: true });
        setTimeout(() => done(window.__ran), 1000);  // no violation reported: answer anyway
        const script = document.createElement("script");
        script.textContent = "window.__ran = true";
        document.body.append(script);
    })""")
    assert ran is False
    expect(page.locator("body")).to_have_attribute("data-python", "ready")

    outcome = page.evaluate("""async (url) => {
        const violations = [];
        document.addEventListener("securitypolicyviolation", (e) => violations.push(e.violatedDirective));
        let fetched;
        try { await fetch(url + "/fetch"); fetched = "sent"; } catch (error) { fetched = "refused"; }
        let beacon;
        try { beacon = navigator.sendBeacon(url + "/beacon", "x") ? "queued" : "refused"; }
        catch (error) { beacon = "refused"; }
        await new Promise((done) => {
            const image = new Image();
            image.onload = image.onerror = done;
            image.src = url + "/pixel.gif";
        });
        await new Promise((done) => setTimeout(done, 200));
        return { fetched, beacon, violations };
    }""", url)
    assert outcome["fetched"] == "refused"
    assert {"connect-src", "img-src"} <= set(outcome["violations"])
    assert seen == [], f"the other origin received {seen}"


# --- the workers live under the page's policy -------------------------------------------------------

REFUSED = "Refused by the page's security policy, nothing sent: "

# Each way a cell's code could reach another site ({url}: the other origin), and what the cell then says.
# Each is refused before a request is made: the cell's note names the refused URL (sendBeacon and
# importScripts do not exist in a module worker, so those two end in the cell's own words instead).
NETWORK_CELLS = {
    "js.fetch": ("import js\njs.fetch('{url}/fetch')\nprint('asked')\n", "asked", "{url}/fetch"),
    "awaited fetch": ("import js\ntry:\n    await js.fetch('{url}/awaited')\nexcept Exception as e:\n"
                      "    print(type(e).__name__, e)\n", "TypeError: Failed to fetch", "{url}/awaited"),
    "pyfetch": ("from pyodide.http import pyfetch\ntry:\n    await pyfetch('{url}/pyfetch')\n"
                "except Exception as e:\n    print(type(e).__name__, e)\n", "Failed to fetch", "{url}/pyfetch"),
    "XMLHttpRequest": ("import js\nx = js.XMLHttpRequest.new()\nx.open('GET', '{url}/xhr', False)\ntry:\n"
                       "    x.send()\nexcept Exception as e:\n    print(type(e).__name__, e)\n",
                       "NetworkError", "{url}/xhr"),
    "WebSocket": ("import js\njs.WebSocket.new('{ws}/socket')\nprint('made')\n", "made", "{ws}/socket"),
    "EventSource": ("import js\njs.EventSource.new('{url}/events')\nprint('made')\n", "made", "{url}/events"),
    "navigator.sendBeacon": ("import js\nbeacon = getattr(js.navigator, 'sendBeacon', None)\n"
                             "print('absent' if beacon is None else beacon('{url}/beacon', 'x'))\n", "absent", None),
    "importScripts": ("import js\ntry:\n    js.importScripts('{url}/script.js')\nexcept Exception as e:\n"
                      "    print(type(e).__name__, e)\n", "Module scripts don't support importScripts()", None),
    "import()": ("import js\ntry:\n    await js.eval(\"import('{url}/module.js')\")\nexcept Exception as e:\n"
                 "    print(type(e).__name__, e)\n", "Failed to fetch dynamically imported module", "{url}/module.js"),
    "micropip from PyPI": ("import micropip\ntry:\n    await micropip.install('tabulate')\nexcept Exception as e:\n"
                           "    print(type(e).__name__, e)\n", "Can't fetch metadata for 'tabulate'",
                           "https://pypi.org/simple/tabulate/"),
    "micropip from another index": (
        "import micropip\ntry:\n    await micropip.install('tabulate', index_urls=['{url}/simple'])\n"
        "except Exception as e:\n    print(type(e).__name__, e)\n", "Can't fetch metadata for 'tabulate'",
        "{url}/simple/tabulate/"),
    # A nested worker from a same-origin URL would have no policy at all: the page's worker-src is blob: only.
    "a nested worker": ("import js\nfrom pyodide.ffi import to_js\n"
                        "js.Worker.new('{site}worker.mjs?module=cells.worker', "
                        "to_js({{'type': 'module'}}, dict_converter=js.Object.fromEntries))\nprint('made')\n",
                        "made", "{site}worker.mjs?module=cells.worker"),
}


class Sent:
    """Every request the page and its workers make, as the browser's routing layer sees it (WebSockets too)."""

    def __init__(self, context, site_url):
        self.site = site_url.split("/lesson/")[0]
        self.outside = []
        context.route(re.compile(r"^(?!" + re.escape(self.site) + r"/).*"), self.record)
        context.route_web_socket(re.compile(".*"), lambda socket: self.outside.append(f"WebSocket {socket.url}"))

    def record(self, route):
        self.outside.append(route.request.url)
        route.abort()


@pytest.fixture(scope="module")
def refusing(browser, site_url):
    """One page, its cells' Python ready, the other origin up, and the logs: (page, url, seen, sent)."""
    with another_origin() as (url, seen):
        page, guard = open_page(browser, site_url, viewport={"width": 1280, "height": 900})
        sent = Sent(page.context, site_url)  # after the guard: it answers first for every outside address
        wait_cells_ready(page)
        yield page, url, seen, sent
        page.context.close()
    problems = guard.problems([r"Failed to load resource", r"Content Security Policy", r"Refused to"])
    assert not problems, problems


def run_in_cell(page, code):
    """Put code into the one_head cell and run it; returns (output, refused note) once it has ended."""
    area = page.locator("#cell-one-head-code")
    area.evaluate("(node, code) => { node.value = code; node.dispatchEvent(new Event('input')); }", code)
    page.get_by_role("button", name="Run cell: one head", exact=True).click()
    expect(page.locator("#cell-one-head-status")).to_have_text(re.compile(r"^(Ran|Failed) "),
                                                               timeout=READY_TIMEOUT_MS)
    return page.locator("#cell-one-head-output"), page.locator("#cell-one-head-refused")


@pytest.mark.parametrize("way", NETWORK_CELLS)
def test_a_cell_cannot_reach_another_site_and_says_why(refusing, site_url, way):
    page, url, seen, sent = refusing
    code, printed, blocked = (text.format(url=url, ws=url.replace("http:", "ws:"), site=site_url) if text else text
                              for text in NETWORK_CELLS[way])
    out, note = run_in_cell(page, code)
    expect(out).to_contain_text(printed)
    if blocked is None:
        expect(note).to_be_empty()
    else:  # the refusal can come after the run ended (a request the code left running): wait for it
        expect(note).to_have_text(re.compile("^" + re.escape(REFUSED + blocked + ".")))
        expect(note).to_contain_text("cannot reach another site")
    page.wait_for_timeout(300)  # a request let out would reach the other server by now (loopback)
    assert seen == [] and sent.outside == [], (seen, sent.outside)


def test_reset_clears_the_refused_note_and_a_later_run_starts_without_one(refusing):
    page, url, seen, sent = refusing
    _, note = run_in_cell(page, f"import js\njs.fetch('{url}/again')\n")
    expect(note).to_contain_text(f"{url}/again")
    page.get_by_role("button", name="Reset cell: one head", exact=True).click()
    expect(note).to_be_empty()
    out, note = run_in_cell(page, "print('a later run')\n")
    expect(out).to_have_text("a later run")
    expect(note).to_be_empty()
    assert seen == [] and sent.outside == [], (seen, sent.outside)


def test_a_cell_still_fetches_the_sites_own_files_and_installs_its_wheels(refusing, built_site):
    """Same origin is allowed, relative URLs mean the site's files (a blob: worker has no base URL of its own)."""
    page, _, seen, sent = refusing
    wheel = next(built_site.glob("wheels/*/*.whl")).relative_to(built_site).as_posix()
    out, note = run_in_cell(page, "from pyodide.http import pyfetch, open_url\n"
                                  "print((await pyfetch('training.json')).status, len(open_url('training.json').read()) > 0)\n"
                                  f"import micropip\nawait micropip.install('{wheel}', reinstall=True)\n"
                                  "print('mha', micropip.list()['mha'].version)\n")
    expect(out).to_contain_text("200 True")
    expect(out).to_contain_text("mha 0.1.0")
    expect(note).to_be_empty()
    assert seen == [] and sent.outside == [], (seen, sent.outside)


def test_every_worker_of_the_page_starts_from_a_blob_and_is_refused_another_origin(refusing):
    """The cells' and the training's workers, asked from outside Python: their own fetch is refused too."""
    page, url, seen, sent = refusing
    page.locator("#trained").scroll_into_view_if_needed()
    expect(page.locator("body")).to_have_attribute("data-training", "ready", timeout=READY_TIMEOUT_MS)
    page.locator("#train-steps").fill("40")
    with page.expect_worker() as started:
        page.locator("#train-start").click()
    expect(page.locator("#train-status")).to_contain_text(re.compile(r"Training: step \d+ of 40|Done: 40 steps"),
                                                          timeout=READY_TIMEOUT_MS)
    assert started.value in page.workers
    assert len(page.workers) >= 2 and all(worker.url.startswith("blob:") for worker in page.workers)
    for worker in page.workers:
        outcome = worker.evaluate("(url) => fetch(url).then(() => 'sent', () => 'refused')", url + "/worker")
        assert outcome == "refused", worker.url
    expect(page.locator("#train-status")).to_contain_text("Done: 40 steps", timeout=READY_TIMEOUT_MS)
    page.locator("#train-reset").click()
    page.locator("#train-steps").fill("800")
    assert seen == [] and sent.outside == [], (seen, sent.outside)


def test_after_every_refusal_the_figure_the_cells_and_training_still_work(refusing):
    page, _, seen, sent = refusing
    out, note = run_in_cell(page, "import mha\nprint(round(mha.softmax([0.0, 0.0])[0], 4))\n")
    expect(out).to_have_text("0.5")
    expect(note).to_be_empty()  # a new run starts with no note
    page.locator("#reset-all").click()
    for (token, slot), value in (((1, 2), "0.0"), ((1, 3), "1.0")):
        field(page, token, slot).fill(value)
    expect_tables(page, EXERCISE)
    page.locator("#reset-all").click()
    assert seen == [] and sent.outside == [], (seen, sent.outside)
