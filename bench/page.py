"""Benchmark: the lesson page against bare Pyodide, in headless Chromium over loopback.

    python bench/page.py [--loads 5] [--edits 120] [--out bench/results/page.json]

One fresh build, one server, interleaved cold loads of a bare page (only
loadPyodide() from the same vendored files: the floor) and of the lesson, then
redraw latency over many edits (the large case between two timings of one fixed CPython
loop: how fast the machine itself ran then), then a repeat visit with a warm HTTP cache,
then the bytes a first visit costs until the cells' worker is ready (counted at the server).
Prints a table and writes JSON. Not a test: nothing here asserts a time. Where the machine's
speed would decide a figure, its target is a ratio to something timed beside it (bare Pyodide's
ready, the fixed loop), so a slow minute moves both sides alike.
"""

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import build  # noqa: E402
from scripts import browsers  # noqa: E402  (which Chromium: one rule with scripts/test.sh and the tests)

from playwright.sync_api import sync_playwright  # noqa: E402

CHOICE = browsers.here("chromium")
if CHOICE.missing:
    raise SystemExit(f"no Chromium to time in: {CHOICE.missing}")
CHROMIUM = CHOICE.path  # None: Playwright's own Chromium (launched without executable_path)
# No routing (it disables the HTTP cache): every host but loopback resolves to nothing.
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1']
READY_MS = 120_000
# After each cold load: the closed page's processes (a lesson's cells worker may be mid-start) wind
# down before the next load, so neither page pays for the one before it on the two cores.
SETTLE_S = 1.5

BARE_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bare Pyodide</title></head>
<body data-python="loading"><p>bare Pyodide</p>
<script type="module">
import { loadPyodide } from "./pyodide/pyodide.mjs";
const pyodide = await loadPyodide({ indexURL: new URL("./pyodide/", location.href).href });
pyodide.runPython("1 + 1");
window.pyodide = pyodide;  // the fixed loop's second yardstick runs in it (pyodide_loop_ms)
document.body.dataset.python = "ready";
</script></body></html>
"""

# Injected before any page script: when does <body data-python> become "ready", and when
# does the first paint happen (the figures are pre-rendered, so first paint shows the numbers).
OBSERVE = """
window.__bench = {};
new MutationObserver(() => {
  if (document.body && document.body.dataset.python === "ready" && !window.__bench.ready)
    window.__bench.ready = performance.now();
  if (document.body && document.body.dataset.cells === "ready" && !window.__bench.cells)
    window.__bench.cells = performance.now();
}).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-python", "data-cells"] });
"""

# One edit: change a field, fire its input event, force style and layout; the Python handler
# runs inside dispatchEvent, so the time covers parse + mha + every table redrawn and laid out.
# gap (ms, optional): wait that long before each edit; without it the edits run back to back.
EDIT = """async ([selector, values, gap]) => {
  const field = document.querySelector(selector);
  const times = [];
  for (const value of values) {
    if (gap) await new Promise((resolve) => setTimeout(resolve, gap));
    const start = performance.now();
    field.value = value;
    field.dispatchEvent(new Event("input", { bubbles: true }));
    document.body.offsetHeight;
    times.push(performance.now() - start);
  }
  return times;
}"""


def network_counter(page):
    """Bytes and requests as the network saw them (CDP): the page's own (a worker's are not seen here)."""
    totals = {"bytes": 0, "requests": 0}
    client = page.context.new_cdp_session(page)
    client.send("Network.enable")

    def finished(event):
        totals["bytes"] += event["encodedDataLength"]
        totals["requests"] += 1

    client.on("Network.loadingFinished", finished)
    return totals


def first_visit_bytes(playwright, site):
    """Bytes the server sends for a first visit until the cells' worker is ready: the page and the worker.

    A profile on disk, as a reader's browser has (a fresh context's cache lives in memory, where the
    9.6 MB wasm does not fit, so its worker would download the wasm again); counted at the server,
    which sees the worker's requests too. Returns (bytes, [paths sent more than once]).
    """
    sent = []
    with build.serving(site, sent=sent) as url, tempfile.TemporaryDirectory() as profile, \
            playwright.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=ARGS) as context:
        page = context.new_page()
        page.goto(url)
        page.locator("[data-cell]").first.scroll_into_view_if_needed()  # the cells' worker starts as a cell nears
        page.wait_for_selector("body[data-cells=ready]", timeout=READY_MS)
    files = [file for file, status in sent if status == 200]  # 304: the browser only asked; no body
    return sum((site / file).stat().st_size for file in files), sorted({f for f in files if files.count(f) > 1})


def load(browser, url, first_run=False):
    """One cold load in a fresh context (an empty HTTP cache); figures in ms from navigation start."""
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(OBSERVE)
    totals = network_counter(page)
    page.goto(url)
    page.wait_for_selector("body[data-python=ready]", timeout=READY_MS)
    page.wait_for_timeout(300)  # let late requests (none expected before ready) finish counting
    figures = {**totals}  # the page's own bytes: counted up to ready, before the cells' worker loads
    if first_run:  # a reader who scrolls to the first cell once the page is ready: the worker starts then
        page.locator("[data-cell]").first.scroll_into_view_if_needed()
        page.wait_for_selector("body[data-cells=ready]", timeout=READY_MS)
        figures["run"] = first_cell_run(page)
    figures.update(page.evaluate("""() => ({
        ready: window.__bench.ready, cells: window.__bench.cells,
        paint: (performance.getEntriesByName("first-contentful-paint")[0] || {}).startTime })"""))
    context.close()
    time.sleep(SETTLE_S)
    return figures


def first_cell_run(page):
    """From the click on the first Run button (the cells' worker is ready) to its output appearing, in ms."""
    return page.evaluate("""() => new Promise((resolve) => {
        const cell = document.querySelector("[data-cell]");
        const output = cell.querySelector("output, .cell-output, pre[aria-live]");
        const button = [...cell.querySelectorAll("button")].find((b) => /^Run/.test(b.getAttribute("aria-label") || b.textContent));
        const start = performance.now();
        new MutationObserver((_, observer) => {
          if (output.textContent.trim()) { observer.disconnect(); resolve(performance.now() - start); }
        }).observe(output, { childList: true, characterData: true, subtree: true });
        button.click();
    })""")


BUSY_CELL = "print('started')\nprint(sum(range(10**11)))\n"  # one long call into C, in the cells' worker


def redraw_times(browser, url, fragment, selector, edits, busy_cell=False):
    """Per-edit redraw latency for one figure state, after one warm-up edit.

    busy_cell: first start BUSY_CELL in a code cell, and time the edits while it runs (checked after).
    """
    context = browser.new_context()
    page = context.new_page()
    page.goto(url + fragment)
    page.wait_for_selector("body[data-python=ready]", timeout=READY_MS)
    if busy_cell:  # the cells' worker starts as a cell nears: scroll there first
        page.locator("[data-cell]").first.scroll_into_view_if_needed()
        page.wait_for_selector("body[data-cells=ready]", timeout=READY_MS)
        page.evaluate("(code) => { document.getElementById('cell-one-head-code').value = code; }", BUSY_CELL)
        page.click("#cell-one-head button[data-action=run]")
        page.wait_for_function("document.getElementById('cell-one-head-output').textContent.includes('started')")
    values = [f"{0.5 + (i % 17) / 10:.1f}" for i in range(edits + 1)]
    times = page.evaluate(EDIT, [selector, values])[1:]
    if busy_cell and not page.inner_text("#cell-one-head-status").startswith("Running"):
        raise RuntimeError("the cell ended before the edits did: the figures would not measure a busy cell")
    context.close()
    return times


# One keystroke to the next frame: the input event (Python redraws inside it), then the frame after it is
# painted (a task queued from requestAnimationFrame runs once that frame's style, layout and paint are done).
NEXT_FRAME = """async ([selector, values]) => {
  const field = document.querySelector(selector);
  const times = [];
  for (const value of values) {
    await new Promise((resolve) => setTimeout(resolve, 30));  // a reader's pause between keys
    const start = performance.now();
    field.value = value;
    field.dispatchEvent(new Event("input", { bubbles: true }));
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    times.push(performance.now() - start);
  }
  return times;
}"""


def widest_frame_times(browser, url, edits):
    """Issue 30's case: 32 tokens x width 64, random projections (2 heads), a reader typing in the grid: each
    keystroke's time to the next painted frame, in ms (after one warm-up keystroke). The outputs are folded,
    as the page folds them past width 16 (opened, their 6,144 cells cost about five times the rest)."""
    sys.path.insert(0, str(ROOT / "site"))
    sys.path.insert(0, str(ROOT / "py"))
    from page import fragment
    from page import state as figure_state

    state = figure_state.default_state()
    state.update(tokens=[[round(((t * 5 + s * 3) % 13) / 6 - 1, 1) for s in range(64)] for t in range(32)],
                 projections="random", seed=0)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(url + "#" + fragment.encode(state))
    page.wait_for_selector("body[data-python=ready]", timeout=READY_MS)  # no cell near: no cells' worker beside it
    selector = "input[aria-label='token 5 slot 20']"
    page.locator(selector).scroll_into_view_if_needed()
    values = [f"{0.5 + (i % 17) / 10:.1f}" for i in range(edits + 1)]
    times = page.evaluate(NEXT_FRAME, [selector, values])[1:]
    context.close()
    return times


def repeat_visit(browser, url):
    """Ready time of a second visit in the same context: the HTTP cache is warm."""
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(OBSERVE)
    page.goto(url)
    page.wait_for_selector("body[data-python=ready]", timeout=READY_MS)
    page.goto("about:blank")
    page.goto(url)
    page.wait_for_selector("body[data-python=ready]", timeout=READY_MS)
    ready = page.evaluate("window.__bench.ready")
    context.close()
    return ready


def large_fragment():
    """16 tokens, width 64, 8 heads, random projections, as a shared link would carry them."""
    sys.path.insert(0, str(ROOT / "site"))
    sys.path.insert(0, str(ROOT / "py"))
    from page import fragment
    from page import state as figure_state

    state = figure_state.default_state()
    state.update(tokens=[[round(((t * 7 + s * 3) % 11) / 5 - 1, 1) for s in range(64)] for t in range(16)],
                 heads=8, kv_heads=8, projections="random", seed=0)
    return "#" + fragment.encode(state)


TEXT_TYPED = """async ([count]) => {
  const field = document.getElementById("text-field");
  const ready = () => new Promise((resolve) => {
    const check = () => (document.body.dataset.text === "ready" ? resolve() : setTimeout(check, 5));
    check();
  });
  const base = field.value;
  const times = [];
  for (let i = 0; i < count; i++) {
    if (field.value.length >= 128) {  // the model's context full: back to the start, read whole (not timed)
      field.value = base;
      field.dispatchEvent(new Event("input", { bubbles: true }));
      await ready();
    }
    const start = performance.now();
    field.value += "abcdefghij"[i % 10];
    field.dispatchEvent(new Event("input", { bubbles: true }));
    document.body.offsetHeight;
    times.push(performance.now() - start);
    await ready();
  }
  return times;
}"""

# A whole-text recompute (a paste): until the guesses and maps are drawn, until the experiments are, and the
# longest the page's thread was held meanwhile (Long Tasks entries, and the widest gap between timer ticks).
TEXT_PASTE = """async ([text]) => {
  const field = document.getElementById("text-field");
  let longest = 0, gap = 0, last = performance.now(), ticking = true, drawn = null;
  const tasks = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longest = Math.max(longest, entry.duration);
  });
  tasks.observe({ type: "longtask" });
  const tick = () => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
    if (ticking) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const start = performance.now();
  const drawing = new MutationObserver(() => { if (drawn === null) drawn = performance.now() - start; });
  drawing.observe(document.getElementById("fig-text-maps"), { childList: true, subtree: true, attributes: true });
  field.value = text;
  field.dispatchEvent(new Event("input", { bubbles: true }));
  await new Promise((resolve) => {
    const check = () => (document.body.dataset.text === "ready" ? resolve() : setTimeout(check, 5));
    check();
  });
  const done = performance.now() - start;
  ticking = false;
  drawing.disconnect();
  tasks.disconnect();
  return { drawn, done, longest, gap };
}"""

# Read whole: short pastes, a paste of the model's whole context (128 characters), and an edit in the middle of the
# default prompt (a character inserted in its tool result: no cache survives it, so it is read whole too).
TEXT_PASTES = ["call find(\"zq81ab\")\ntool: zq81ab", "u: where is p0x7kk?\na: p0x7kk", "tool: k7q2xm\nai: k7q2xm",
               "lookup ab12cd\n> " + "the queue was drained and the log rotated at noon; " * 2 + "\n> ab12cd!",
               'spec: answer with the id\ntool: {"id":"k7q2xm"x,"state":"sent","items":[3,1]}\nai: sent k7q2xm']


def text_times(browser, url, edits):
    """Section 9: a character typed at the end (the KV cache) and whole-text recomputes (pastes), in ms."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(url + "#text")
    page.wait_for_selector("body[data-python=ready]", timeout=READY_MS)  # no cell near: no cells' worker beside it
    page.locator("#text").scroll_into_view_if_needed()
    page.wait_for_selector("body[data-text=ready]", timeout=READY_MS, state="attached")
    typed = page.evaluate(TEXT_TYPED, [edits])[1:]
    pastes = [page.evaluate(TEXT_PASTE, [TEXT_PASTES[i % len(TEXT_PASTES)]]) for i in range(max(3, edits // 10))]
    if any(paste["drawn"] is None for paste in pastes):
        raise RuntimeError("a paste was never drawn: is each of TEXT_PASTES one the model reads?")
    context.close()
    return typed, pastes


# The fixed loop, as Python source: CPython runs it here (host_loop_ms) and Pyodide in a bare page (pyodide_loop_ms),
# so both yardsticks time the same code. Its value is the median of 7 timings, in ms.
LOOP = """
import statistics, time

def loop_ms():  # in a function: its names are locals, not a module's globals
    start = time.perf_counter()
    total = 0
    for i in range(300_000):
        total += i * i
    return (time.perf_counter() - start) * 1000

statistics.median(loop_ms() for _ in range(7))
"""


def host_loop_ms():
    """How fast the machine runs right now: LOOP in this CPython (ms).

    The same loop took 17-29 ms here from one second to the next (the host's other work), so beside
    a redraw figure it tells a slow minute from a slow page. The large redraw's target is its ratio to
    this loop; the loop itself is never a target.
    """
    *body, last = LOOP.strip().splitlines()
    scope = {}
    exec("\n".join(body), scope)
    return eval(last, scope)


def pyodide_loop_ms(page):
    """host_loop_ms's loop, run by Pyodide in a bare page of the same browser (page: bare.html, ready): the yardstick
    in the page's own engine. Reported beside the CPython loop, not a target: it shows whether a ratio moved with the
    page or with the yardstick (the CPython loop ran at 18.7 ms one day and 9.6 ms another, while the page's own
    times held)."""
    page.bring_to_front()  # a tab behind the measured pages runs slower
    return page.evaluate("(code) => pyodide.runPython(code)", LOOP)


def p95(values):
    return statistics.quantiles(values, n=20)[-1]


def run(loads, edits):
    with tempfile.TemporaryDirectory() as tmp:
        site = build.build(Path(tmp) / "dist")
        (site / "bare.html").write_text(BARE_PAGE)
        # The site ships its library in two parts (page_stdlib.zip, stdlib_rest.zip); bare Pyodide takes its own.
        shutil.copyfile(build.NODE_MODULES / "pyodide" / "python_stdlib.zip", site / "pyodide" / "python_stdlib.zip")
        with build.serving(site) as url, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            bare, ours = [], []
            for _ in range(loads):  # interleaved, so drift on the machine hits both alike
                bare.append(load(browser, url + "bare.html"))
                ours.append(load(browser, url, first_run=True))
            small = redraw_times(browser, url, "", "input[aria-label='token 1 slot 2']", edits)
            busy = redraw_times(browser, url, "", "input[aria-label='token 1 slot 2']", edits, busy_cell=True)
            loop_page = browser.new_page()
            loop_page.goto(url + "bare.html")
            loop_page.wait_for_selector("body[data-python=ready]", timeout=READY_MS)
            wasm = [pyodide_loop_ms(loop_page)]  # the same loop in Pyodide, beside each CPython one
            host = [host_loop_ms()]  # the machine's speed on both sides of the large case
            large = redraw_times(browser, url, large_fragment(), "input[aria-label='token 3 slot 10']", edits)
            host.append(host_loop_ms())
            wasm.append(pyodide_loop_ms(loop_page))
            widest = widest_frame_times(browser, url, edits)
            host.append(host_loop_ms())
            wasm.append(pyodide_loop_ms(loop_page))
            typed, pastes = text_times(browser, url, edits)
            text_host = [host[-1], host_loop_ms()]  # section 9's own yardstick, on both sides of its case
            text_wasm = [wasm[-1], pyodide_loop_ms(loop_page)]
            loop_page.close()
            repeats = [repeat_visit(browser, url) for _ in range(loads)]
            browser.close()
            visit_bytes, sent_twice = first_visit_bytes(p, site)

    def median(rows, key):
        return statistics.median(row[key] for row in rows)

    result = {
        "bare_ready_ms": median(bare, "ready"),
        "ready_ms": median(ours, "ready"),
        "first_paint_ms": median(ours, "paint"),
        "first_run_ms": median(ours, "run"),
        "cell_worker_ready_ms": median(ours, "cells"),
        "bytes": median(ours, "bytes"),
        "bare_bytes": median(bare, "bytes"),
        "requests": median(ours, "requests"),
        "bare_requests": median(bare, "requests"),
        "redraw_small_median_ms": statistics.median(small),
        "redraw_small_p95_ms": p95(small),
        "redraw_during_cell_median_ms": statistics.median(busy),
        "redraw_during_cell_max_ms": max(busy),
        "redraw_large_median_ms": statistics.median(large),
        "redraw_large_p95_ms": p95(large),
        "frame_widest_median_ms": statistics.median(widest),
        "host_loop_ms": statistics.mean(host),
        "text_host_loop_ms": statistics.mean(text_host),
        "pyodide_loop_ms": statistics.mean(wasm),
        "text_pyodide_loop_ms": statistics.mean(text_wasm),
        "text_typed_median_ms": statistics.median(typed),
        "text_recompute_median_ms": statistics.median(p["drawn"] for p in pastes),
        "text_experiments_median_ms": statistics.median(p["done"] for p in pastes),
        "text_longest_task_ms": max(max(p["longest"], p["gap"]) for p in pastes),
        "repeat_ready_ms": statistics.median(repeats),
        "first_visit_bytes": visit_bytes,
        "first_visit_sent_twice": sent_twice,
        "loads": loads,
        "edits": edits,
        "date": time.strftime("%Y-%m-%d"),
    }
    result["ready_ratio"] = result["ready_ms"] / result["bare_ready_ms"]
    result["bytes_ratio"] = result["bytes"] / result["bare_bytes"]
    # The machine's speed decides the milliseconds (the same code's large redraw took 5.3 ms one day and
    # 19.2 ms another); stated against a yardstick timed on the same minutes, the figure keeps still.
    result["redraw_large_to_host_loop"] = result["redraw_large_median_ms"] / result["host_loop_ms"]
    result["first_paint_to_bare_ready"] = result["first_paint_ms"] / result["bare_ready_ms"]
    result["frame_widest_to_host_loop"] = result["frame_widest_median_ms"] / result["host_loop_ms"]
    result["text_typed_to_host_loop"] = result["text_typed_median_ms"] / result["text_host_loop_ms"]
    result["text_recompute_to_host_loop"] = result["text_recompute_median_ms"] / result["text_host_loop_ms"]
    result["redraw_large_to_pyodide_loop"] = result["redraw_large_median_ms"] / result["pyodide_loop_ms"]
    result["text_typed_to_pyodide_loop"] = result["text_typed_median_ms"] / result["text_pyodide_loop_ms"]
    return result


# Ratios where the machine's speed would otherwise decide the figure; milliseconds only where a reader
# would feel the time on any machine (a first Run, a redraw stalled behind a busy cell).
TARGETS = {"ready_ratio": 1.10, "bytes_ratio": 1.1, "redraw_large_to_host_loop": 0.8, "frame_widest_to_host_loop": 4,
           "first_paint_to_bare_ready": 0.2, "first_run_ms": 500, "redraw_during_cell_max_ms": 100,
           "text_typed_to_host_loop": 1.0, "text_recompute_to_host_loop": 15, "text_longest_task_ms": 100}


def table(result):
    rows = [("bare Pyodide ready", "bare_ready_ms", "ms"), ("lesson ready", "ready_ms", "ms"),
            ("ready ratio (lesson / bare)", "ready_ratio", "x"), ("first paint, numbers visible", "first_paint_ms", "ms"),
            ("first paint / bare Pyodide ready", "first_paint_to_bare_ready", "x"),
            ("cells' worker ready (from navigation)", "cell_worker_ready_ms", "ms"),
            ("first code-cell run after the worker is ready", "first_run_ms", "ms"), ("bytes, lesson", "bytes", "B"),
            ("bytes, bare", "bare_bytes", "B"), ("bytes ratio", "bytes_ratio", "x"),
            ("requests, lesson / bare", "requests", ""), ("redraw, lesson example, median", "redraw_small_median_ms", "ms"),
            ("redraw while a cell runs sum(range(10**11)), median", "redraw_during_cell_median_ms", "ms"),
            ("redraw while a cell runs sum(range(10**11)), slowest", "redraw_during_cell_max_ms", "ms"),
            ("redraw, 16x64 8 heads random projections, median", "redraw_large_median_ms", "ms"),
            ("redraw, 16x64 8 heads random projections, p95", "redraw_large_p95_ms", "ms"),
            ("the machine's speed around it: one fixed CPython loop", "host_loop_ms", "ms"),
            ("large redraw median / the fixed loop", "redraw_large_to_host_loop", "x"),
            ("the same loop in Pyodide, in a bare page beside it", "pyodide_loop_ms", "ms"),
            ("large redraw median / the loop in Pyodide (not a target)", "redraw_large_to_pyodide_loop", "x"),
            ("keystroke to next frame, 32x64 random projections, median", "frame_widest_median_ms", "ms"),
            ("keystroke to next frame, 32x64 / the fixed loop", "frame_widest_to_host_loop", "x"),
            ("section 9, a character typed at the end, median", "text_typed_median_ms", "ms"),
            ("the fixed CPython loop around section 9's case", "text_host_loop_ms", "ms"),
            ("section 9, a character typed at the end, median / the fixed loop", "text_typed_to_host_loop", "x"),
            ("the loop in Pyodide around section 9's case", "text_pyodide_loop_ms", "ms"),
            ("section 9, typed / the loop in Pyodide (not a target)", "text_typed_to_pyodide_loop", "x"),
            ("section 9, a paste read whole until drawn, median / the fixed loop", "text_recompute_to_host_loop", "x"),
            ("section 9, a paste until both experiments are drawn, median", "text_experiments_median_ms", "ms"),
            ("section 9, the longest the page's thread was held during a paste", "text_longest_task_ms", "ms"),
            ("repeat visit ready (warm cache)", "repeat_ready_ms", "ms"),
            ("bytes sent until the cells' worker is ready (disk cache)", "first_visit_bytes", "B")]
    lines = [f"| figure | value | target |", "|---|---|---|"]
    for label, key, unit in rows:
        value = result[key]
        shown = (f"{value / 1e6:.2f} MB" if unit == "B" else f"{value:.2f}" if unit == "x"
                 else f"{value:.0f} / {result['bare_requests']:.0f}" if key == "requests" else f"{value:.1f} ms")
        target = TARGETS.get(key)
        verdict = "" if target is None else f"≤ {target} {'met' if value <= target else 'MISSED'}"
        lines.append(f"| {label} | {shown} | {verdict} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=5, help="cold loads of each page (median taken)")
    parser.add_argument("--edits", type=int, default=120, help="edits per redraw case")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "page.json")
    args = parser.parse_args()
    result = run(args.loads, args.edits)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(table(result))
    if result["first_visit_sent_twice"]:
        print(f"sent twice on a first visit: {', '.join(result['first_visit_sent_twice'])}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
