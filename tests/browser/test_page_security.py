"""The Content-Security-Policy makes "nothing is sent to a server" a rule the browser enforces.

A second loopback server plays "another origin": if the page could reach it, it would
see the request. The route guard in conftest.py would also catch a request, so these
tests check the server's log: with the CSP, the browser never sends one.
"""

import http.server
import threading

import pytest
from playwright.sync_api import expect

import build
from conftest import wait_ready


@pytest.fixture
def other_origin():
    """A loopback server on another port (another origin) that records what reaches it."""
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
    yield f"http://127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()
    server.server_close()


def test_built_page_carries_the_policy(built_site):
    head = (built_site / "index.html").read_text().split("</head>")[0]
    assert f'<meta http-equiv="Content-Security-Policy" content="{build.CSP}">' in head
    for directive in ("default-src 'self'", "connect-src 'self'", "worker-src 'self'", "object-src 'none'"):
        assert directive in build.CSP
    assert "http" not in build.CSP and "*" not in build.CSP  # no other origin is named anywhere


@pytest.mark.expected_console(r"Content Security Policy", r"Failed to fetch", r"Refused to")
def test_fetch_beacon_and_image_to_another_origin_are_refused(page, site_url, other_origin):
    url, seen = other_origin
    # conftest's guard aborts every request to another origin; let this one through, so
    # only the CSP stands between the page and the other server (whose log we read).
    page.route(f"{url}/**", lambda route: route.continue_())
    page.goto(site_url)
    wait_ready(page)
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


@pytest.mark.expected_console(r"Content Security Policy", r"Refused to")
def test_inline_script_is_refused(page, site_url):
    """An injected inline <script> does not run: only files from this origin execute."""
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
