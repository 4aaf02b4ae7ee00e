"""Benchmark: the trained model's section in headless Chromium over loopback (not a test).

    python bench/training_page.py [--edits 40] [--probes 60]

One fresh build, one server, one page. Measures:
- default-seed training in the page's worker: seconds from the Train click until the worker's
  Python is up, then the training seconds (the worker's own clock) until its progress first
  reports >= 95% accuracy (on its quick held-out batch), and the full run;
- the live figure's edit redraw (section 3, from the input event to laid out) while that run is on,
  edits spaced 150 ms apart so the worker's progress messages interleave with them;
- a probe edit's redraw (the sequence field: parse, mha.training.predict, trees, drawn and laid out).
Prints a table. Nothing here asserts a time.
"""

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "site"), str(ROOT / "py")]

import importlib.util  # noqa: E402

import build  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

# bench/page.py's browser settings (loaded by path: site/page is a package of the same name)
_spec = importlib.util.spec_from_file_location("bench_page", ROOT / "bench" / "page.py")
bench_page = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_page)
ARGS, CHROMIUM, READY_MS = bench_page.ARGS, bench_page.CHROMIUM, bench_page.READY_MS

TRAIN_MS = 600_000

# Watch the worker's progress: the click, the first progress (the worker's Python is up), and the
# first progress whose accuracy is >= 95% (the worker's own seconds since training began).
WATCH = """() => {
  const bench = window.__train = { click: performance.now(), first: null, ninety_five: null, done: null };
  const status = document.getElementById("train-status");
  new MutationObserver(() => {
    const text = status.textContent;
    const live = document.querySelector("#train-live .train-frame");  // its quick accuracy: an attribute
    if (text.startsWith("Training:") && bench.first === null) bench.first = performance.now();
    const accuracy = live && live.dataset.quickAccuracy !== undefined && 100 * Number(live.dataset.quickAccuracy);
    const clock = text.match(/Training: step (\\d+) of \\d+, ([\\d.]+) s/);
    if (accuracy !== false && clock && accuracy >= 95 && bench.ninety_five === null)
      bench.ninety_five = { step: Number(clock[1]), seconds: Number(clock[2]) };
    const done = text.match(/^Done: (\\d+) steps in ([\\d.]+) s; held-out accuracy ([\\d.]+)%/);
    if (done && bench.done === null)
      bench.done = { steps: Number(done[1]), seconds: Number(done[2]), accuracy: Number(done[3]) };
  }).observe(status, { childList: true, characterData: true, subtree: true });
  document.getElementById("train-start").click();
}"""

def built():
    return build.build(Path(tempfile.mkdtemp(prefix="training-bench-")) / "dist")


def run(edits, probes):
    with build.serving(built()) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url)
        page.locator("#trained").scroll_into_view_if_needed()  # the section loads its run when it comes near
        page.wait_for_selector("body[data-training=ready]", timeout=READY_MS)
        page.locator("#cell-training").scroll_into_view_if_needed()  # the cells' worker starts as its cell nears:
        page.wait_for_selector("body[data-cells=ready]", timeout=READY_MS)  # booted now, a quiet CPU after
        page.locator("#trained").scroll_into_view_if_needed()
        probe_values = ["BECAFDBCAFDB", "FACEADBA", "ABCDEFABCDEF", "FBCEADBA"] * (probes // 4 + 1)
        probe_idle = page.evaluate(bench_page.EDIT, ["#probe-sequence", probe_values[:probes + 1], 20])[1:]
        page.evaluate(WATCH)
        page.wait_for_function("window.__train.first !== null", timeout=TRAIN_MS)
        values = [f"{0.5 + (i % 17) / 10:.1f}" for i in range(edits + 1)]
        live = page.evaluate(bench_page.EDIT, ["input[aria-label='token 1 slot 2']", values, 150])[1:]
        still_training = page.inner_text("#train-status").startswith("Training:")
        page.wait_for_function("window.__train.done !== null", timeout=TRAIN_MS)
        result = page.evaluate("window.__train")
        probe_trained = page.evaluate(bench_page.EDIT, ["#probe-sequence", probe_values[:probes + 1], 20])[1:]
        browser.close()
    return {
        "worker_start_s": (result["first"] - result["click"]) / 1000,
        "to_95_s": result["ninety_five"]["seconds"] if result["ninety_five"] else None,
        "to_95_step": result["ninety_five"]["step"] if result["ninety_five"] else None,
        "full_run_s": result["done"]["seconds"], "full_run_steps": result["done"]["steps"],
        "full_run_accuracy": result["done"]["accuracy"],
        "live_edit_median_ms": statistics.median(live), "live_edit_max_ms": max(live),
        "live_edits_all_during_training": still_training,
        "probe_idle_median_ms": statistics.median(probe_idle),
        "probe_after_training_median_ms": statistics.median(probe_trained),
    }


def table(r):
    rows = [
        ("worker's Python up, from the Train click", f"{r['worker_start_s']:.1f} s"),
        ("default seed to >= 95% (quick held-out batch), training only",
         f"{r['to_95_s']:.1f} s (step {r['to_95_step']})" if r["to_95_s"] is not None else "not reached"),
        (f"full default run ({r['full_run_steps']} steps), then held-out accuracy",
         f"{r['full_run_s']:.1f} s, {r['full_run_accuracy']:.1f}%"),
        ("section 3 edit redraw while training, median (slowest)",
         f"{r['live_edit_median_ms']:.1f} ms ({r['live_edit_max_ms']:.1f} ms)"
         + ("" if r["live_edits_all_during_training"] else " [training ended before the last edit]")),
        ("probe edit redraw, build-time checkpoint, median", f"{r['probe_idle_median_ms']:.1f} ms"),
        ("probe edit redraw, your trained model, median", f"{r['probe_after_training_median_ms']:.1f} ms"),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=40, help="section 3 edits timed while training")
    parser.add_argument("--probes", type=int, default=60, help="probe edits timed")
    args = parser.parse_args()
    print(table(run(args.edits, args.probes)))


if __name__ == "__main__":
    main()
