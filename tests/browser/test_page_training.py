"""The trained model's section in headless Chromium: scrub, probe, switch heads off, train, stop, reset.

Expected numbers are mha.training's own, computed here in CPython from the same build-time run
(figures.training.run_data(), cached) that the page was built with. One page load is shared by
the tests of this module (scrolled to the section: it loads its data only when near); the tests of
start-up (scrubbing without Python, the frames and the run fetched only when the section comes
near, a failed fetch) open pages of their own.
Training in the page runs short (a few dozen steps): the point is the page's wiring, and the
package's tests check what a full run learns.
"""

import re

import pytest
from playwright.sync_api import expect

import mha.training as training
from conftest import (EXERCISE, READY_TIMEOUT_MS, WASM, Requests, assert_no_axe_violations_light_and_dark,
                      expect_tables, field, wait_ready)
from figures import training as fig


@pytest.fixture(scope="module")
def browser(tiered_browser):
    """This section trains in the tab for seconds: the optimising V8 of conftest.tiered_browser."""
    return tiered_browser


TRAIN_TIMEOUT_MS = 240_000  # a short run, plus a fresh Pyodide in a worker, on a loaded 2-core box
READY_MS_CELLS = READY_TIMEOUT_MS  # the cells' worker starts after the page's Python


@pytest.fixture(scope="module")
def run():
    return fig.run_data()


DATA = "**/training.json"            # the build-time run, for the page's Python (app/training.py)
FRAMES = f"**/{fig.FRAMES_FILE}"      # the checkpoint frames the page does not carry (boot.js)
LAST = fig.COUNT - 1


@pytest.fixture(scope="module")
def section(lesson):
    """conftest's shared page, scrolled to section 8 (it loads its run once it is near) and ready."""
    lesson.locator("#trained").scroll_into_view_if_needed()
    expect(lesson.locator("body")).to_have_attribute("data-training", "ready", timeout=READY_TIMEOUT_MS)
    return lesson


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


def summary(run, index):
    c = run["checkpoints"][index]
    return (f"Step {c['step']} of {run['steps']}: batch loss {run['losses'][c['step'] - 1]:.3f}, "
            f"held-out accuracy {fig.percent(c['ablated'][0])}")


def text_of(node):
    """A tree's text, as textContent reads the element it draws."""
    return node if isinstance(node, str) else "".join(text_of(child) for child in node[2:])


def shown_name(run, index):
    """The probe's caption for a build-time checkpoint: "The build-time run (at step 40)"."""
    return fig.capitalised(fig.run_name(run, index))


def label(run, index):
    return f"step {run['checkpoints'][index]['step']} of {run['steps']}"


def expect_frame(page, run, index):
    """Checkpoint index is the one frame shown, with its summary; the slider and its readout name it."""
    expect(shown_frame(page)).to_have_count(1)
    expect(shown_frame(page)).to_have_attribute("data-frame", str(index))
    expect(shown_frame(page).locator(".train-summary")).to_have_text(summary(run, index))
    expect(page.locator("#train-step-text")).to_have_text(label(run, index))
    expect(page.locator("#train-step")).to_have_attribute("aria-valuetext", label(run, index))
    expect(page.locator("#train-step")).to_have_value(str(index))
    expect(page.locator("#fig-train-frames")).not_to_have_attribute("aria-busy", "true")


# --- before Python, and without it ----------------------------------------------------------

@pytest.mark.expected_console(r"Failed to load resource", r"Failed to fetch", r"wasm instantiation failed")
def test_without_python_the_slider_shows_every_checkpoints_frame(page, site_url, run):
    """The runtime's wasm refused: the page fails to start Python, and the slider still scrubs all 20
    checkpoints, the 19 the page does not carry fetched when the slider is first touched."""
    page.route(WASM, lambda route: route.abort())
    requests = Requests(page)
    page.goto(site_url)
    expect(page.locator("body")).to_have_attribute("data-python", "failed", timeout=READY_TIMEOUT_MS)
    expect(page.locator("#fig-train-frames [data-frame]")).to_have_count(1)  # only the chosen one in the page
    expect_frame(page, run, LAST)
    slider = page.get_by_role("slider", name="Checkpoint")
    slider.focus()
    page.keyboard.press("Home")
    expect_frame(page, run, 0)
    for index in range(1, fig.COUNT):
        page.keyboard.press("ArrowRight")
        expect_frame(page, run, index)
    page.keyboard.press("PageDown")
    page.keyboard.press("End")
    expect_frame(page, run, LAST)
    expect(page.locator("#fig-train-frames [data-frame]")).to_have_count(fig.COUNT)
    assert len(requests.of(fig.FRAMES_FILE)) == 1 and not requests.of("training.json")
    expect(page.locator("#train-frames-error")).to_be_hidden()


def test_a_slider_moved_before_the_frames_arrive_shows_its_frame_when_they_do(page, site_url, hold, run):
    held_python, held_frames = hold(page, WASM), hold(page, FRAMES)
    page.goto(site_url)
    slider = page.get_by_role("slider", name="Checkpoint")
    slider.focus()  # the first touch asks for the frames (held here)
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    # The step is named at once; the frame shown is still the last one, dimmed, until the chosen one is here.
    expect(page.locator("#train-step-text")).to_have_text(label(run, 1))
    expect(slider).to_have_attribute("aria-valuetext", label(run, 1))
    expect(page.locator("#fig-train-frames")).to_have_attribute("aria-busy", "true")
    expect(shown_frame(page)).to_have_attribute("data-frame", str(LAST))
    held_frames.release()
    expect_frame(page, run, 1)
    expect(page.locator("#fig-train-frames [data-frame]")).to_have_count(fig.COUNT)
    frame_order = page.locator("#fig-train-frames [data-frame]").evaluate_all("fs => fs.map(f => f.dataset.frame)")
    assert frame_order == [str(i) for i in range(fig.COUNT)]
    expect(page.locator("body")).to_have_attribute("data-python", "loading")
    held_python.release()


@pytest.mark.expected_console(r"Failed to load resource: the server responded with a status of 404")
def test_a_failed_frames_fetch_keeps_the_frame_shown_and_says_so(page, site_url, run):
    page.route(FRAMES, lambda route: route.fulfill(status=404, body="not here"))
    page.goto(site_url)
    wait_ready(page)
    slider = page.get_by_role("slider", name="Checkpoint")
    slider.focus()
    page.keyboard.press("ArrowLeft")
    error = page.locator("#train-frames-error")
    expect(error).to_be_visible()
    expect(error).to_have_text(f"The other checkpoints could not be loaded (the server answered 404), so the "
                               f"slider stays at {label(run, LAST)}. Move it to try again, or reload the page.")
    expect(error).to_have_attribute("role", "alert")
    expect_frame(page, run, LAST)  # the slider went back to the frame it shows
    expect(page.locator("#fig-train-frames [data-frame]")).to_have_count(1)
    # The glue's probe followed the slider back (once the section's run is in).
    expect(page.locator("body")).to_have_attribute("data-training", "ready", timeout=READY_TIMEOUT_MS)
    expect(page.locator("#fig-probe caption")).to_have_text(shown_name(run, LAST))
    # A later move tries again: the file is back, so the frames arrive and the message goes.
    page.unroute(FRAMES)
    slider.focus()
    page.keyboard.press("ArrowLeft")
    expect_frame(page, run, LAST - 1)
    expect(error).to_be_hidden()
    expect(page.locator("#fig-probe caption")).to_have_text(shown_name(run, LAST - 1))


# --- loading only when near -----------------------------------------------------------------

def scroll_to_section(page, viewports_above):
    """Scroll so that the section's top is viewports_above viewport heights below the screen's top."""
    page.evaluate("(n) => window.scrollTo(0, document.getElementById('trained').getBoundingClientRect().top"
                  " + window.scrollY - n * window.innerHeight)", viewports_above)


def test_the_run_and_the_frames_are_fetched_only_when_the_section_comes_near(page, site_url, hold, run):
    """Start-up (the page's Python) fetches neither; scrolled to within a viewport
    height of the section, the glue fetches training.json (held here: the status says it is loading), then
    the section is ready; the frames arrive when the slider's panel is near."""
    page.set_viewport_size({"width": 1280, "height": 900})
    requests = Requests(page)
    held = hold(page, DATA)
    page.goto(site_url)
    wait_ready(page)
    page.wait_for_timeout(1000)  # after the page's Python was ready: time enough for a fetch at start-up
    status, train = page.locator("#train-status"), page.locator("#train-start")
    scroll_to_section(page, 3)  # two viewport heights below the screen's bottom: not near yet
    page.wait_for_timeout(500)
    assert not requests.of("training.json") and not requests.of(fig.FRAMES_FILE), requests.urls
    expect(status).to_be_empty()  # nothing claimed while nothing loads
    expect(train).to_be_disabled()
    expect(page.locator("body")).not_to_have_attribute("data-training", "ready")
    scroll_to_section(page, 1.5)  # half a viewport below the bottom: within the observer's margin
    expect(status).to_have_text("Loading the build-time run\u2026")
    expect(train).to_be_disabled()
    held.release()
    expect(page.locator("body")).to_have_attribute("data-training", "ready", timeout=READY_TIMEOUT_MS)
    expect(status).to_be_empty()
    expect(train).to_be_enabled()
    assert len(requests.of("training.json")) == 1
    page.locator("#fig-train-frames").scroll_into_view_if_needed()
    expect(page.locator("#fig-train-frames [data-frame]")).to_have_count(fig.COUNT)
    assert len(requests.of(fig.FRAMES_FILE)) == 1 and len(requests.of("training.json")) == 1
    expect_frame(page, run, LAST)


def test_a_focus_in_the_section_wakes_it_before_it_is_scrolled_near(page, site_url, run):
    """The observer has not fired (the page is at its top) when the reader reaches the probe's field by
    keyboard focus: the section loads its run (focus() scrolls too; either way it is the first)."""
    page.set_viewport_size({"width": 1280, "height": 900})
    requests = Requests(page)
    page.goto(site_url)
    wait_ready(page)
    assert not requests.of("training.json")
    page.evaluate("document.getElementById('probe-sequence').focus({preventScroll: true})")
    expect(page.locator("body")).to_have_attribute("data-training", "ready", timeout=READY_TIMEOUT_MS)
    assert page.evaluate("window.scrollY") == 0
    assert len(requests.of("training.json")) == 1


# --- scrub, probe, switch off ---------------------------------------------------------

def test_the_probe_follows_the_slider_once_python_is_ready(reader, run):
    reader.locator("#train-step").focus()
    reader.keyboard.press("ArrowLeft")
    reader.keyboard.press("ArrowLeft")
    index = fig.COUNT - 3
    c = run["checkpoints"][index]
    expect(shown_frame(reader)).to_have_attribute("data-frame", str(index))
    expect(reader.locator("#fig-probe caption")).to_have_text(shown_name(run, index))
    expect(guesses(reader)).to_have_text(expected_guesses(training.params_from_checkpoint(c), fig.SAMPLE))
    expect(reader.locator("#train-accuracy")).to_have_text(
        f"Held-out accuracy with every head on: {fig.percent(c['ablated'][0])}.")


def test_a_typed_sequence_and_the_presets_are_probed(reader, run):
    params = training.params_from_checkpoint(run["checkpoints"][-1])
    reader.locator("#probe-sequence").fill("fa ce")
    expect(guesses(reader)).to_have_text(expected_guesses(params, "FACE"))
    expect(reader.locator("#fig-probe svg.train-map")).to_have_count(len(fig.head_names(params)))  # one a head
    reader.get_by_role("button", name="A near-duplicate").click()
    expect(reader.locator("#probe-sequence")).to_have_value(fig.NEAR)
    expect(guesses(reader)).to_have_text(expected_guesses(params, fig.NEAR))
    expect(reader.locator("#fig-probe svg.train-map").first).to_have_attribute(
        "aria-label", f"layer 0 head 0: attention on {fig.NEAR}, one cell per query and key")
    reader.get_by_role("button", name="An exact repeat").click()
    expect(guesses(reader)).to_have_text(expected_guesses(params, fig.REPEAT))


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


def cell_title(page, head, query, key):
    return page.locator("#fig-probe svg.train-map").nth(head).locator(
        f'rect[data-q="{query}"][data-k="{key}"] title')


def expect_patterns(page, params, text, off):
    """Every head's cells on text, with the heads in off switched off: the exact weight in each <title> (a
    sample of cells: the last row, where the induction head's stripe is), and the guesses."""
    tokens = fig.parse_sequence(text)
    trace = training.forward(params, tokens, ablate=off)
    for index, (layer, h) in enumerate(fig.head_names(params)):
        for key in (0, 5, 6, len(tokens) - 1):
            expect(cell_title(page, index, len(tokens) - 1, key)).to_have_text(
                re.compile(rf": {trace.weights[layer][h][-1][key]:.4f}$"))
    expect(guesses(page)).to_have_text([fig.LETTERS[training.model.argmax(row)] for row in trace.logits])


def test_switching_off_each_head_redraws_the_patterns_guesses_scores_and_accuracy(reader, run):
    """Each head alone, then every head: the probe's patterns and guesses are computed again with the heads off
    (layer 1's stripe fades when layer 0's previous-token head is off), and the table shows the measured run."""
    final = run["checkpoints"][-1]
    params = training.params_from_checkpoint(final)
    names = fig.head_names(params)
    switches = reader.locator("#fig-train-switches")
    for i, name in enumerate(names):
        switches.get_by_label(fig.head_label(*name), exact=True).check()
        expect_patterns(reader, params, fig.SAMPLE, {name})
        expect(reader.locator("#train-accuracy")).to_have_text(
            f"Held-out accuracy with {fig.head_label(*name)} switched off: {fig.percent(final['ablated'][1 << i])} "
            f"(every head on: {fig.percent(final['ablated'][0])}).")
        rows = reader.get_by_role("table", name="head scores").locator("tbody tr")
        for j, (prev, ind) in enumerate(final["scores_off"][1 << i]):  # the last column: with head j off too
            expect(rows.nth(j).locator("td")).to_have_text(
                ["\u2014"] * 3 if j == i else [f"{prev:.2f}", f"{ind:.2f}", fig.percent(final["ablated"][1 << i | 1 << j])])
        expect(rows.nth(i)).to_have_class("off")  # the head switched off: dashes, muted, not its own scores
        expect(reader.locator("#fig-probe .train-head.off figcaption")).to_have_text([f"{fig.head_label(*name)} (off)"])
        switches.get_by_label(fig.head_label(*name), exact=True).uncheck()
    expect_patterns(reader, params, fig.SAMPLE, set())
    for name in names:
        switches.get_by_label(fig.head_label(*name), exact=True).check()
    expect_patterns(reader, params, fig.SAMPLE, set(names))
    expect(reader.locator("#train-accuracy")).to_contain_text(fig.percent(final["ablated"][-1]))


def test_each_cells_weight_is_read_on_hover_and_on_keyboard_focus_and_in_the_tables(reader, run):
    params = training.params_from_checkpoint(run["checkpoints"][-1])
    weights = training.predict(params, fig.parse_sequence(fig.SAMPLE))["weights"]
    readout = reader.locator("#fig-probe .train-readout")
    last_map = reader.locator("#fig-probe svg.train-map").last
    layer, h = fig.head_names(params)[-1]
    last_map.locator('rect[data-q="11"][data-k="7"]').hover()
    expect(readout).to_have_text(re.compile(rf"query 11 \(B\) on key 7 \(C\): {weights[layer][h][11][7]:.4f}$"))
    last_map.locator('rect[data-q="0"][data-k="0"]').focus()  # the map's one tab stop
    expect(readout).to_have_text(re.compile(r"query 0 \(B\) on key 0 \(B\): 1\.0000$"))
    for key in ("ArrowDown", "ArrowDown", "ArrowRight"):
        reader.keyboard.press(key)
    expect(readout).to_have_text(re.compile(rf"query 2 \(C\) on key 1 \(E\): {weights[layer][h][2][1]:.4f}$"))
    focused = reader.evaluate("[document.activeElement.dataset.q, document.activeElement.dataset.k]")
    assert focused == ["2", "1"]
    reader.get_by_text("The weights as tables").click()
    table = reader.get_by_role("table", name=f"{fig.head_label(layer, h)} weights")
    expect(table.locator("tbody tr").nth(2).locator("td")).to_have_text(
        [f"{w:.4f}" for w in weights[layer][h][2][:3]] + [""] * 9)
    reader.get_by_text("The weights as tables").click()


def test_the_switch_off_question_is_checked_against_the_measured_answer(reader):
    from figures import questions

    answer = questions.answers()["trained"]
    question = reader.locator('[data-question="trained"]')
    reads = reader.locator("#fig-train-reads")  # what each earlier head's switch does: the answer, in numbers
    expect(reader.locator("#q-trained-answer")).to_be_empty()  # hidden until Check
    expect(reads).to_be_hidden()
    note = reader.locator("#fig-train-scores .train-heads-note")  # which heads share the job: the answer in words
    expect(note).to_be_hidden()
    expect(reader.locator('[data-before="trained"]')).to_be_visible()
    question.locator(f'input[value="{answer["answer"]}"]').check()
    question.get_by_role("button", name="Check my answer").click()
    expect(reader.locator("#q-trained-answer")).to_contain_text(answer["verdicts"][answer["answer"]])
    expect(reader.locator("#q-trained-answer")).to_contain_text(answer["explanation"])
    final = fig.run_data()["checkpoints"][-1]
    expect(reads).to_have_text(text_of(fig.reads_through(fig.describe_run(final))[0]))
    expect(note).to_be_visible()
    expect(reader.locator('[data-before="trained"]')).to_be_hidden()
    reader.locator("#train-step").fill("11")  # another checkpoint: the sentence is drawn again, still shown
    middle = fig.run_data()["checkpoints"][11]
    expect(reads).to_have_text(text_of(fig.reads_through(fig.describe_run(middle, False))[0]))
    reader.locator("#train-step").fill(str(len(fig.run_data()["checkpoints"]) - 1))
    question.locator('input[type="radio"]:not(:checked)').first.check()  # another answer: it waits again
    expect(reads).to_be_hidden()


@pytest.mark.parametrize("box, typed, words", [("#train-seed", "abc", "seed: 'abc' is not a whole number"),
                                               ("#train-seed", "-4", "seed must be between 0 and 999,999"),
                                               ("#train-steps", "0", "steps must be between 1 and 3,000")])
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
    expect(reader.locator("#train-mine-note")).to_be_visible()  # why the slider went, and how it comes back
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
    expect(reader.locator("#fig-probe caption")).to_contain_text(f"Your run (seed 1, {step} steps)")
    expect(reader.locator("#train-live .train-summary")).to_contain_text(
        "held-out accuracy is measured if the run reaches its last step")  # true after a Stop too
    expect(reader.locator("#fig-train-scores")).to_contain_text("measured when training ends")
    expect(reader.locator("#fig-train-story")).to_have_text(
        f"Your run (seed 1, {step} steps) is not measured yet: what it formed is measured on the held-out set "
        f"when training ends.")
    # The switches still act on the model as it was at the Stop: its patterns and guesses are computed again.
    box = reader.locator("#fig-train-switches").get_by_label("layer 0 head 0", exact=True)
    before = cell_title(reader, -1, 11, 7).text_content()
    box.check()
    expect(reader.locator("#fig-probe caption")).to_contain_text("layer 0 head 0 switched off")
    expect(cell_title(reader, -1, 11, 7)).not_to_have_text(before)
    box.uncheck()
    expect(cell_title(reader, -1, 11, 7)).to_have_text(before)
    reader.locator("#train-steps").fill(str(training.STEPS))
    reader.locator("#train-seed").fill("0")


def test_a_stop_before_the_first_progress_leaves_the_build_time_run_and_working_switches(reader, run):
    """The worker's Python takes seconds to start, so a Stop right after Train comes before any step."""
    reader.locator("#train-seed").fill("4")
    reader.locator("#train-start").click()
    expect(reader.locator("#train-live")).to_contain_text("Starting a Python for training")
    reader.locator("#train-stop").click()
    expect(reader.locator("#train-status")).to_have_text("Stopped before the first step: back to the build-time run.")
    expect(reader.locator("#train-live")).to_be_hidden()
    expect(reader.locator("#train-live")).to_be_empty()
    expect(reader.locator("#fig-train-frames")).to_be_visible()
    expect(reader.locator("#train-step")).to_be_enabled()
    expect(reader.locator("#train-start")).to_be_enabled()
    expect(reader.locator("#train-stop")).to_be_disabled()
    final = run["checkpoints"][-1]
    params = training.params_from_checkpoint(final)
    expect(reader.locator("#fig-probe caption")).to_have_text("The build-time run")
    reader.locator("#fig-train-switches").get_by_label("layer 0 head 0", exact=True).check()
    expect_patterns(reader, params, fig.SAMPLE, {(0, 0)})
    expect(reader.locator("#train-accuracy")).to_contain_text(fig.percent(final["ablated"][1]))
    reader.locator("#train-seed").fill("0")


def test_a_stop_while_the_run_is_measured_keeps_the_trained_model_unmeasured(reader):
    """Measuring every set of heads switched off takes the worker seconds after the last step: a Stop then ends
    the worker, keeps the model of the last progress report, and says it is not measured."""
    reader.locator("#train-seed").fill("5")
    reader.locator("#train-steps").fill("20")
    reader.locator("#train-start").click()
    expect(reader.locator("#train-status")).to_contain_text("Measuring its heads", timeout=TRAIN_TIMEOUT_MS)
    reader.locator("#train-stop").click()
    expect(reader.locator("#train-status")).to_contain_text("Stopped at step 20.")
    expect(reader.locator("#train-start")).to_be_enabled()
    expect(reader.locator("#train-stop")).to_be_disabled()
    expect(reader.locator("#fig-probe caption")).to_contain_text("Your run (seed 5, 20 steps)")
    expect(reader.locator("#fig-train-scores")).to_contain_text("measured when training ends")
    reader.locator("#train-reset").click()
    expect(reader.locator("#train-status")).to_have_text("Back to the build-time run.")
    reader.locator("#train-steps").fill(str(training.STEPS))
    reader.locator("#train-seed").fill("0")


def test_a_short_run_trains_to_the_end_is_measured_and_reset_goes_back(reader, run):
    """30 steps are far too few for the circuit: the sentences about the run must say what it did instead,
    each number the same as the same run measured here in CPython."""
    steps, seed = 30, 2
    reader.locator("#train-seed").fill(str(seed))
    reader.locator("#train-steps").fill(str(steps))
    reader.locator("#train-start").click()
    params = training.train(seed, steps)  # the same run in CPython (deterministic for a seed), while the tab trains
    measured = training.measure(params)
    expect(reader.locator("#train-status")).to_contain_text(f"Done: {steps} steps", timeout=TRAIN_TIMEOUT_MS)
    facts = fig.describe_run(measured)
    assert facts["kind"] != "circuit"  # the run this test is about: one that does not form it
    whose = f"your run (seed {seed}, {steps} steps)"
    expect(reader.locator("#fig-train-scores caption")).to_contain_text(f"Your run (seed {seed}, {steps} steps)")
    expect(reader.locator("#fig-train-story")).to_have_text(
        "".join(text_of(t) for t in fig.story(facts, whose)))
    expect(reader.locator("#fig-train-story")).not_to_contain_text("build-time")
    expect(reader.locator("#train-live .train-summary")).to_contain_text(
        f"held-out accuracy {fig.percent(measured['ablated'][0])}")
    shown = reader.locator("#train-accuracy").text_content()
    assert float(re.search(r"([\d.]+)%", shown).group(1)) == pytest.approx(100 * measured["ablated"][0], abs=0.2)
    expect(guesses(reader)).to_have_text(expected_guesses(params, fig.SAMPLE))
    expect(reader.locator("#train-live .train-summary")).to_contain_text(f"Step {steps} of {steps}")
    expect(reader.locator("#fig-train-frames")).to_be_hidden()
    # the seed chart rings the reader's run (steps named: not the sweep's 800), at its seed
    expect(reader.locator("#fig-seeds .seeds-chart.wide .seed-mine title")).to_have_text(
        f"your seed {seed}, {steps} steps: {100 * measured['ablated'][0]:.1f}% held-out")
    reader.locator("#train-reset").click()
    expect(reader.locator("#fig-seeds .seed-mine")).to_have_count(0)
    expect(reader.locator("#train-mine-note")).to_be_hidden()
    expect(reader.locator("#fig-train-frames")).to_be_visible()
    expect(reader.locator("#train-live")).to_be_hidden()
    expect(reader.locator("#train-step")).to_be_enabled()
    expect(reader.locator("#fig-train-slider")).to_be_visible()
    expect(reader.locator("#fig-probe caption")).to_have_text("The build-time run")
    build_facts = fig.describe_run(run["checkpoints"][-1])
    expect(reader.locator("#fig-train-story")).to_have_text(
        "".join(text_of(t) for t in fig.story(build_facts, "the build-time run")))
    reader.locator("#train-seed").fill("0")
    reader.locator("#train-steps").fill(str(training.STEPS))


# --- the code cell, accessibility ------------------------------------------------------------

# (The training cell, run in the page with its invitation followed: test_page_cells.py.)


def test_no_accessibility_violations_in_the_section_light_or_dark(reader):
    reader.locator("#probe-sequence").fill("ABG")
    reader.locator("#train-seed").fill("x")
    reader.locator("#fig-train-switches").get_by_label("layer 1 head 0").check()
    assert_no_axe_violations_light_and_dark(reader, context={"include": [["#trained"]]})
    reader.locator("#train-seed").fill("0")
