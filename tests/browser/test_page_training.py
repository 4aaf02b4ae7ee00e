"""The trained model's section in headless Chromium: scrub, probe, switch heads off, train, stop, reset.

Expected numbers are mha.training's own, computed here in CPython from the same build-time run
(figures.training.run_data(), cached) that the page was built with. One page load is shared by
the tests of this module; the scrub-before-Python test holds the runtime back on a page of its own.
Training in the page runs short (a few dozen steps): the point is the page's wiring, and the
package's tests check what a full run learns.
"""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

import mha.training as training
from conftest import EXERCISE, READY_TIMEOUT_MS, WASM, expect_tables, field, open_page
from figures import training as fig

TRAIN_TIMEOUT_MS = 240_000  # a short run, plus a fresh Pyodide in a worker, on a loaded 2-core box
READY_MS_CELLS = READY_TIMEOUT_MS  # the cells' worker starts after the page's Python


@pytest.fixture(scope="module")
def run():
    return fig.run_data()


@pytest.fixture(scope="module")
def section(browser, site_url):
    page, guard = open_page(browser, site_url, viewport={"width": 1280, "height": 900})
    expect(page.locator("body")).to_have_attribute("data-training", "ready", timeout=READY_TIMEOUT_MS)
    yield page
    page.context.close()
    assert not guard.problems(), guard.problems()


@pytest.fixture
def reader(section):
    """The shared page with the section reset: the build-time run, the last checkpoint, the sample."""
    section.locator("#train-reset").click()
    last = str(fig.COUNT - 1)
    section.locator("#train-step").fill(last)
    section.locator("#probe-sequence").fill(fig.SAMPLE)
    for box in section.locator("#fig-train-switches input[type=checkbox]").all():
        box.uncheck()
    expect(section.locator("#probe-error")).to_be_empty()
    return section


def guesses(page):
    return page.locator("#fig-probe td.guess")


def expected_guesses(params, text):
    return [fig.LETTERS[g] for g in training.predict(params, fig.parse_sequence(text))["predictions"]]


def shown_frame(page):
    return page.locator("#fig-train-frames [data-frame]:not([hidden])")


# --- before Python ----------------------------------------------------------------------

def test_the_slider_scrubs_the_pre_rendered_checkpoints_before_python_loads(page, site_url, hold, run):
    held = hold(page, WASM)
    page.goto(site_url)
    slider = page.get_by_role("slider", name="Checkpoint")
    expect(shown_frame(page)).to_have_attribute("data-frame", str(fig.COUNT - 1))
    slider.focus()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    c = run["checkpoints"][1]
    expect(shown_frame(page)).to_have_attribute("data-frame", "1")
    expect(shown_frame(page).locator(".train-summary")).to_contain_text(
        f"Step {c['step']} of {run['steps']}: batch loss {run['losses'][c['step'] - 1]:.3f}, "
        f"held-out accuracy {fig.percent(c['ablated'][0])}")
    expect(page.locator("#train-step-text")).to_have_text(f"step {c['step']} of {run['steps']}")
    expect(slider).to_have_attribute("aria-valuetext", f"step {c['step']} of {run['steps']}")
    expect(page.locator("#fig-train-frames [data-frame]:not([hidden])")).to_have_count(1)
    expect(page.locator("body")).to_have_attribute("data-python", "loading")
    held.release()


# --- scrub, probe, switch off ---------------------------------------------------------

def test_the_probe_follows_the_slider_once_python_is_ready(reader, run):
    reader.locator("#train-step").focus()
    reader.keyboard.press("ArrowLeft")
    reader.keyboard.press("ArrowLeft")
    index = fig.COUNT - 3
    c = run["checkpoints"][index]
    expect(shown_frame(reader)).to_have_attribute("data-frame", str(index))
    expect(reader.locator("#fig-probe caption")).to_contain_text(fig.checkpoint_name(run, index))
    expect(guesses(reader)).to_have_text(expected_guesses(training.params_from_checkpoint(c), fig.SAMPLE))
    expect(reader.locator("#train-accuracy")).to_have_text(
        f"Held-out accuracy with every head on: {fig.percent(c['ablated'][0])}.")


def test_a_typed_sequence_and_the_presets_are_probed(reader, run):
    params = training.params_from_checkpoint(run["checkpoints"][-1])
    reader.locator("#probe-sequence").fill("fa ce")
    expect(guesses(reader)).to_have_text(expected_guesses(params, "FACE"))
    expect(reader.locator("#fig-probe svg.train-map")).to_have_count(2)
    reader.get_by_role("button", name="A letter seen twice").click()
    expect(reader.locator("#probe-sequence")).to_have_value(fig.SPLIT)
    expect(guesses(reader)).to_have_text(expected_guesses(params, fig.SPLIT))
    expect(reader.locator("#fig-probe svg.train-map").first).to_have_attribute(
        "aria-label", f"layer 0 head 0: attention on your sequence {fig.SPLIT}")


@pytest.mark.parametrize("typed, words", [("ABG", "'G' (letter 3) is not one of the model's tokens"),
                                          ("", "The sequence is empty"),
                                          ("ABCDEFABCDEFA", "13 letters is too many")])
def test_bad_input_in_the_sequence_field_gets_a_sentence_and_the_figure_keeps_its_state(reader, run, typed, words):
    params = training.params_from_checkpoint(run["checkpoints"][-1])
    reader.locator("#probe-sequence").fill("BECAF")
    expect(guesses(reader)).to_have_text(expected_guesses(params, "BECAF"))
    reader.locator("#probe-sequence").fill(typed)
    expect(reader.locator("#probe-error")).to_contain_text(words)
    expect(guesses(reader)).to_have_text(expected_guesses(params, "BECAF"))
    reader.locator("#probe-sequence").fill("BECAFD")
    expect(reader.locator("#probe-error")).to_be_empty()


def test_switching_heads_off_shows_the_precomputed_held_out_accuracy(reader, run):
    final = run["checkpoints"][-1]
    switches = reader.locator("#fig-train-switches")
    switches.get_by_label("layer 1 head 0").check()
    expect(reader.locator("#train-accuracy")).to_have_text(
        f"Held-out accuracy with layer 1 head 0 switched off: {fig.percent(final['ablated'][2])} "
        f"(every head on: {fig.percent(final['ablated'][0])}).")
    switches.get_by_label("layer 0 head 0").check()
    expect(reader.locator("#train-accuracy")).to_contain_text(
        f"layer 0 head 0, layer 1 head 0 switched off: {fig.percent(final['ablated'][3])}")
    switches.get_by_label("layer 1 head 0").uncheck()
    expect(reader.locator("#train-accuracy")).to_contain_text(
        f"layer 0 head 0 switched off: {fig.percent(final['ablated'][1])}")
    rows = reader.get_by_role("table", name="head scores").locator("tbody tr")
    expect(rows.nth(1).locator("td")).to_have_text(
        [f"{final['scores'][1][0]:.2f}", f"{final['scores'][1][1]:.2f}", fig.percent(final["ablated"][2])])


@pytest.mark.parametrize("box, typed, words", [("#train-seed", "abc", "seed: 'abc' is not a whole number"),
                                               ("#train-seed", "-4", "seed must be between 0 and 999999"),
                                               ("#train-steps", "0", "steps must be between 1 and 3000")])
def test_a_bad_seed_or_step_count_gets_a_sentence_and_train_does_not_start(reader, box, typed, words):
    reader.locator(box).fill(typed)
    expect(reader.locator("#train-seed-error")).to_contain_text(words)
    reader.locator("#train-start").click()
    expect(reader.locator("#train-seed-error")).to_contain_text(words)
    expect(reader.locator("#train-stop")).to_be_disabled()
    expect(reader.locator("#train-live")).to_be_hidden()
    reader.locator(box).fill("0" if box == "#train-seed" else str(training.STEPS))
    expect(reader.locator("#train-seed-error")).to_be_empty()


# --- train, stop, reset -------------------------------------------------------------------

def test_a_stop_during_training_keeps_the_model_so_far_and_the_figure_above_answers(reader):
    reader.locator("#train-seed").fill("1")
    reader.locator("#train-steps").fill(str(fig.MAX_STEPS))
    reader.locator("#train-start").click()
    expect(reader.locator("#train-stop")).to_be_enabled()
    expect(reader.locator("#train-step")).to_be_disabled()
    expect(reader.locator("#fig-train-slider")).to_be_hidden()
    expect(reader.locator("#train-status")).to_contain_text(re.compile(r"Training: step \d+ of 3000"),
                                                            timeout=TRAIN_TIMEOUT_MS)
    expect(reader.locator("#train-live .train-summary")).to_contain_text("of 3000")
    # While the worker trains, section 3's live figure still redraws on an edit.
    reader.locator("#reset-all").click()
    for (token, slot), value in (((1, 2), "0.0"), ((1, 3), "1.0")):
        field(reader, token, slot).fill(value)
    expect_tables(reader, EXERCISE)
    reader.locator("#reset-all").click()
    expect(reader.locator("#train-stop")).to_be_enabled()  # still training: the run is long
    reader.locator("#train-stop").click()
    status = reader.locator("#train-status")
    expect(status).to_contain_text(re.compile(r"Stopped at step \d+\."))
    step = int(re.search(r"Stopped at step (\d+)", status.text_content()).group(1))
    expect(reader.locator("#train-start")).to_be_enabled()
    expect(reader.locator("#train-stop")).to_be_disabled()
    expect(reader.locator("#fig-probe caption")).to_contain_text(f"Your model (seed 1, {step} steps)")
    expect(reader.locator("#fig-train-scores")).to_contain_text("measured when training ends")
    reader.locator("#train-steps").fill(str(training.STEPS))
    reader.locator("#train-seed").fill("0")


def test_a_short_run_trains_to_the_end_is_measured_and_reset_goes_back(reader, run):
    steps, seed = 30, 2
    reader.locator("#train-seed").fill(str(seed))
    reader.locator("#train-steps").fill(str(steps))
    reader.locator("#train-start").click()
    expect(reader.locator("#train-status")).to_contain_text(f"Done: {steps} steps", timeout=TRAIN_TIMEOUT_MS)
    params = training.train(seed, steps)  # the same run in CPython (deterministic for a seed)
    measured = fig.measure(params)
    expect(reader.locator("#fig-train-scores caption")).to_contain_text(f"Your model (seed {seed}, {steps} steps)")
    shown = reader.locator("#train-accuracy").text_content()
    assert float(re.search(r"([\d.]+)%", shown).group(1)) == pytest.approx(100 * measured["ablated"][0], abs=0.2)
    expect(guesses(reader)).to_have_text(expected_guesses(params, fig.SAMPLE))
    expect(reader.locator("#train-live .train-summary")).to_contain_text(f"Step {steps} of {steps}")
    expect(reader.locator("#fig-train-frames")).to_be_hidden()
    reader.locator("#train-reset").click()
    expect(reader.locator("#fig-train-frames")).to_be_visible()
    expect(reader.locator("#train-live")).to_be_hidden()
    expect(reader.locator("#train-step")).to_be_enabled()
    expect(reader.locator("#fig-train-slider")).to_be_visible()
    expect(reader.locator("#fig-probe caption")).to_contain_text(fig.checkpoint_name(run, fig.COUNT - 1))
    reader.locator("#train-seed").fill("0")
    reader.locator("#train-steps").fill(str(training.STEPS))


# --- the code cell, accessibility ------------------------------------------------------------

def test_the_training_cell_runs_in_the_browser_and_prints_both_scores_per_head(reader):
    expect(reader.locator("body")).to_have_attribute("data-cells", "ready", timeout=READY_MS_CELLS)
    reader.get_by_role("button", name="Run cell: training", exact=True).click()
    status = reader.locator("#cell-training-status")
    expect(status).to_have_text(re.compile(r"^(Ran|Failed|Stopped) "), timeout=READY_MS_CELLS)
    expect(status).to_have_text(re.compile(r"^Ran in "))  # well inside the cells' time limit
    output = reader.locator("#cell-training-output")
    expect(output).to_contain_text(re.compile(r"layer 0 head 0: previous-token \d\.\d\d, induction \d\.\d\d"))
    expect(output).to_contain_text(re.compile(r"layer 1 head 0: previous-token \d\.\d\d, induction \d\.\d\d"))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_accessibility_violations_in_the_section(reader, scheme):
    reader.emulate_media(color_scheme=scheme)
    reader.locator("#probe-sequence").fill("ABG")
    reader.locator("#train-seed").fill("x")
    reader.locator("#fig-train-switches").get_by_label("layer 1 head 0").check()
    results = Axe().run(reader, context={"include": [["#trained"]]})
    assert results.violations_count == 0, results.generate_report()
    reader.locator("#train-seed").fill("0")
    reader.emulate_media(color_scheme="light")
