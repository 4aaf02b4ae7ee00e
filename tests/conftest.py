"""Shared fixtures. Browser tests: the built site on a loopback port under /lesson/, in Debian's chromium.

Every test that uses `page` fails if a request leaves the site's origin, or if a
console error, a page error or a Python traceback shows up (tests that expect
some errors name them with @pytest.mark.expected_console). Unit tests need none
of this: playwright is only touched by the browser fixtures.
"""

import re
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT, ROOT / "site"):  # build.py, and the page's pure modules (dom, figure, ...)
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import build  # noqa: E402  (needs the path above)

CHROMIUM = "/usr/bin/chromium"  # Debian's; playwright's own browser download is not reachable
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
# Pyodide start-up is ~3-4 s here (12 MB from loopback, then booting CPython in wasm),
# but a loaded 2-core CI box can take many times that: wait long, never sleep.
READY_TIMEOUT_MS = 60_000


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "expected_console(*patterns): console/page errors matching a regex are allowed")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The site, built once per session by the real build.py into a temp dir."""
    return build.build(tmp_path_factory.mktemp("site") / "dist")


@pytest.fixture(scope="session")
def site_url(built_site):
    """The built site served like a static host: loopback, a free port, under /lesson/, plain headers."""
    server = build.make_server(built_site, port=0, prefix=build.SUB_PATH)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}{build.SUB_PATH}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def page(page, site_url, request):
    """pytest-playwright's page, guarded: no request may leave the origin, no error may reach the console."""
    origin = urlsplit(site_url)[:2]
    outside, errors = [], []

    def guard(route):
        url = route.request.url
        if urlsplit(url)[:2] == origin:
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    def on_console(message):
        if message.type == "error" or "Traceback" in message.text:
            errors.append(f"console {message.type}: {message.text}")

    page.context.route("**/*", guard)
    page.on("console", on_console)
    page.on("pageerror", lambda error: errors.append(f"page error: {error}"))
    yield page

    marker = request.node.get_closest_marker("expected_console")
    allowed = [re.compile(p) for p in (marker.args if marker else ())]
    unexpected = [e for e in errors if not any(p.search(e) for p in allowed)]
    problems = [f"request left the origin: {url}" for url in outside] + unexpected
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def wait_ready(page):
    """Block until main.py has drawn (body data-python="ready"); see READY_TIMEOUT_MS for why so long."""
    from playwright.sync_api import expect

    expect(page.locator("body")).to_have_attribute("data-python", "ready", timeout=READY_TIMEOUT_MS)


class HeldRequest:
    """Hold back every request for one file until release(): Python stays 'loading' meanwhile."""

    def __init__(self, page, pattern):
        self.routes = []
        self.page = page
        page.route(pattern, lambda route: self.routes.append(route))

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


@pytest.fixture
def hold():
    """hold(page, "**/pyodide.asm.wasm") -> HeldRequest; release it to let start-up go on."""
    return HeldRequest
