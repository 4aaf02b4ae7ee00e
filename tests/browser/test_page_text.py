"""Section 9 in headless Chromium: the seeds, the field, bad input, the switches, the maps, the experiment, the keyboard.

Expected numbers come from outside the page: the command line (`python -m mha.text TEXT --json`, run here
in CPython) for the guesses, their probabilities and each head's weights, and mha.text's own
continuation_probability for the experiments; the page must print them to the digit it prints.
One page is shared by the module's tests, scrolled to the section (the model loads when it is near).
"""

import pytest
from playwright.sync_api import expect

import mha.text
import mha.text_lesson as lesson
from figures import text as fig
from page import dom
from conftest import READY_TIMEOUT_MS, assert_no_axe_violations_light_and_dark, open_page
from printed import pair, two
from text_cli import cli, shown


@pytest.fixture(scope="module")
def browser(tiered_browser):
    """The text model runs in the tab on every edit: the optimising V8 of conftest.tiered_browser."""
    return tiered_browser


MODEL = mha.text.load()
DEFAULT = lesson.DEFAULT_PROMPT


@pytest.fixture(scope="module")
def section(lesson):
    lesson.locator("#text").scroll_into_view_if_needed()
    expect(lesson.locator("body")).to_have_attribute("data-text", "ready", timeout=READY_TIMEOUT_MS)
    return lesson


def settle(page):
    """Wait until the page has read the text and run both experiments (body[data-text=ready])."""
    expect(page.locator("body")).to_have_attribute("data-text", "ready", timeout=READY_TIMEOUT_MS)


@pytest.fixture
def reader(section):
    """The shared page back at seed 0, the default text, every head on, the last row read."""
    if not section.locator("#text-seed-0").is_checked():
        section.locator("#text-seed-0").check()
        settle(section)
    for box in section.locator("#fig-text-switches input").all():
        if box.is_checked():
            box.uncheck()
            settle(section)
    field = section.locator("#text-field")
    if field.input_value() != DEFAULT:
        field.fill(DEFAULT)
    settle(section)
    section.locator("#text-position").fill(str(len(DEFAULT) - 1))
    expect(section.locator("#text-error")).to_be_empty()
    return section


def assert_page_equals_cli(page, text, off=(), seed=0):
    """The guesses, their probabilities and the read row's weights of every head, as the CLI prints them."""
    expected = cli(text, off, seed)
    assert expected["text"] == text
    guesses = page.locator("#fig-text-reads td.guess")
    expect(guesses).to_have_count(len(text))
    assert guesses.all_text_contents() == [shown(g) for g in expected["guess"]]
    titles = guesses.evaluate_all("cells => cells.map((cell) => cell.getAttribute('title'))")  # one round trip
    for title, p in zip(titles, expected["probability"], strict=True):
        assert f"p = {p:.4f}" in title
    row = int(page.locator("#text-position").input_value())
    maps = page.locator("svg.text-map")
    said = maps.evaluate_all("maps => maps.map((map) => [map.dataset.weights, map.querySelector('rect[data-q]')"
                             ".querySelector('title').textContent, map.querySelector('rect[data-q]').dataset.k])")
    assert len(said) == len(expected["heads"])
    for (weights, title, key), head in zip(said, expected["heads"]):
        assert weights.split() == [f"{w:.4f}" for w in head["weights"][row]]  # the outlined row, as the readout prints
        assert title.endswith(f": {head['weights'][row][int(key)]:.4f}")


def experiment_numbers(text, off=()):
    """Every probability the experiment prints for this text, as mha.text computes them (CPython)."""
    found = lesson.find_id(text)
    near_prompts = [(prompt, (found.end, found.near_end) if kind in ("near", "yours") else (found.end,))
                    for kind, prompt in lesson.near_duplicate_prompts(text, MODEL.context)]
    p = {(prompt, end): mha.text.continuation_probability(MODEL, prompt, end, off).probability
         for prompt, ends in near_prompts for end in ends}
    return p, [prompt for prompt, _ in near_prompts], found


# --- the field -------------------------------------------------------------------------------------

def test_the_default_figure_is_the_clis_and_the_status_clears(reader):
    assert_page_equals_cli(reader, DEFAULT)
    expect(reader.locator("#text-status")).to_be_empty()
    expect(reader.locator("#fig-text-reads tr").first).to_have_text(shown(DEFAULT))


def test_typing_at_the_end_redraws_with_one_more_row(reader):
    field = reader.locator("#text-field")
    field.press("End")
    field.press("Control+End")
    field.press_sequentially(" ok")
    settle(reader)
    assert_page_equals_cli(reader, DEFAULT + " ok")
    assert reader.locator("#text-position").input_value() == str(len(DEFAULT) + 2)


FRESH = """([maps, reads]) => {
    const fresh = document.createElement("div");
    fresh.id = "fresh-build";
    document.body.append(fresh);
    const html = (id, json) => { window.mhaDraw("fresh-build", json); return [document.getElementById(id).innerHTML, fresh.innerHTML]; };
    const result = [html("fig-text-maps", maps), html("fig-text-reads", reads)];
    fresh.remove();
    return result;
}"""


def test_characters_typed_at_the_end_draw_what_a_fresh_build_of_the_text_draws(reader):
    """Each key sends only the edits from the last trees (app/text.py's redraw): after three of them, the maps and
    the guesses are the DOM that the trees built here in CPython for the whole text draw afresh, the readout's hint
    too, though a focused cell had written its weight there."""
    reader.locator("svg.text-map rect[data-q]").first.focus()
    expect(reader.locator("#fig-text-maps .train-readout")).to_contain_text("layer 0 head 0: query")
    field = reader.locator("#text-field")
    field.press("Control+End")
    field.press_sequentially("k7q")
    settle(reader)
    state = fig.with_text(fig.default_state(), DEFAULT + "k7q")
    reading = fig.read(state)
    for page_html, fresh_html in reader.evaluate(FRESH, [dom.to_json(fig.maps(reading, state)),
                                                         dom.to_json(fig.reads(reading))]):
        assert page_html == fresh_html


def test_a_paste_is_read_whole_saying_how_far_it_has_read(reader):
    text = "lookup ab12cd\n> " + "the queue was drained and the log rotated at noon; " * 2 + "\n> ab12cd!"
    assert len(text) == 128
    reader.evaluate("""() => { window.mhaStatus = []; new MutationObserver(() => window.mhaStatus.push(
        document.getElementById('text-status').textContent)).observe(document.getElementById('text-status'),
        {childList: true, subtree: true, characterData: true}); }""")
    reader.locator("#text-field").fill(text)
    settle(reader)
    assert_page_equals_cli(reader, text)
    said = reader.evaluate("window.mhaStatus")
    progress = [line for line in said if line.startswith("Reading your text with seed 0's model: ")]
    assert progress and all(line.endswith(" of 128 characters\u2026") for line in progress), said
    counts = [int(line.split(": ")[1].split(" of ")[0]) for line in progress]
    assert counts == sorted(counts) and 0 < counts[0] < 128


def test_an_edit_in_the_middle_is_read_whole_and_capitals_are_read_lower_case(reader):
    field = reader.locator("#text-field")
    field.focus()
    field.evaluate("f => f.setSelectionRange(0, 4)")  # 'tool' selected
    reader.keyboard.type("ANSWER")
    settle(reader)
    text = "answer" + DEFAULT[4:]
    assert field.input_value() == "ANSWER" + DEFAULT[4:]  # the reader's text stays as typed
    assert_page_equals_cli(reader, text)


@pytest.mark.parametrize("typed", ["tool: caf\u00e9", "x" * (MODEL.context + 1), ""])
def test_bad_input_says_mha_texts_sentence_marks_the_field_and_keeps_the_figure(reader, typed):
    with pytest.raises(ValueError) as refused:
        mha.text.parse_text(MODEL, typed)
    before = reader.locator("#fig-text-reads").inner_html()
    field = reader.locator("#text-field")
    field.fill(typed)
    expect(reader.locator("#text-error")).to_have_text(str(refused.value))
    expect(field).to_have_attribute("aria-invalid", "true")
    assert field.input_value() == typed
    assert field.evaluate("f => getComputedStyle(f).borderTopWidth") == "2px"
    assert reader.locator("#fig-text-reads").inner_html() == before
    # the figures kept are dimmed and named: the last text the model could read
    expect(reader.locator("#text-status")).to_have_text(
        f"Dimmed below: the last text it could read, {shown(DEFAULT)}.")
    size = reader.viewport_size  # on a phone, that text (its spaces drawn as boxes: one long word) breaks to fit
    reader.set_viewport_size({"width": 375, "height": size["height"]})
    assert reader.evaluate("document.documentElement.scrollWidth") <= 375
    reader.set_viewport_size(size)
    assert reader.locator("#fig-text-near").evaluate("e => getComputedStyle(e).borderLeftStyle") == "dashed"
    assert reader.locator("#fig-text-maps svg").first.evaluate("e => getComputedStyle(e).opacity") == "0.35"
    field.fill(DEFAULT)
    expect(reader.locator("#text-error")).to_be_empty()
    expect(reader.locator("#text-status")).not_to_contain_text("Dimmed")
    assert reader.locator("#fig-text-near").evaluate("e => getComputedStyle(e).borderLeftStyle") == "none"
    expect(field).not_to_have_attribute("aria-invalid", "true")
    settle(reader)


def test_beside_the_field_its_length_and_the_experiments_and_a_long_paste_offers_its_last_characters(reader):
    context = MODEL.context
    room = reader.locator("#text-room")  # 91; the exact repeat: its prompt (88) + ' k7q2xm' (7) + the end 2xm (3)
    expect(room).to_have_text(f"91 of {context} characters; the experiment adds a space and a second k7q2xm: 98.")
    field, tail = reader.locator("#text-field"), reader.locator("#text-tail")
    expect(tail).to_be_hidden()
    field.fill("hello there")
    expect(room).to_have_text(f"11 of {context} characters.")  # no id: nothing added
    # the id's second copy far enough from the end that its experiment fits the last 128 characters
    pasted = "log: " + "the queue drained; " * 160 + "\nuser: is ab12cd ok?\nai: ab12cd is fine, thanks"
    field.fill(pasted)
    expect(reader.locator("#text-error")).to_have_text(f"{len(pasted):,} characters is longer than the model's "
                                                       f"context of {context}")
    expect(room).to_have_text(f"{len(pasted):,} of {context} characters.")
    expect(tail).to_have_text(f"Read its last {context} characters")
    tail.focus()
    reader.keyboard.press("Enter")  # a button: the keyboard reaches it
    expect(tail).to_be_hidden()
    expect(reader.locator("#text-error")).to_be_empty()
    assert field.input_value() == pasted[-context:]
    expect(field).to_be_focused()
    settle(reader)
    assert_page_equals_cli(reader, pasted[-context:])
    assert "ab12cd" in reader.locator("#fig-text-near").text_content()  # its id, found in the last characters


# --- the switches and the maps -------------------------------------------------------------------

def test_a_switch_redraws_the_guesses_and_maps_and_draws_the_head_off(reader):
    box = reader.locator("#text-off-0-1")
    box.check()
    settle(reader)
    assert_page_equals_cli(reader, DEFAULT, off=[(0, 1)])
    heads = reader.locator("#fig-text-maps figure")
    expect(heads.nth(1)).to_have_class("train-head text-head off")
    expect(heads.nth(1).locator("figcaption")).to_contain_text("(off, adds nothing)")
    expect(heads.nth(0)).not_to_have_class("train-head text-head off")
    box.uncheck()
    settle(reader)
    assert_page_equals_cli(reader, DEFAULT)
    expect(heads.nth(1)).to_have_class("train-head text-head")


def test_the_slider_and_a_click_choose_the_row_whose_weights_are_readable(reader):
    slider = reader.locator("#text-position")
    slider.focus()
    slider.press("Home")
    assert slider.input_value() == "0"
    expect(reader.locator("svg.text-map").first.locator("rect[data-q]")).to_have_count(1)
    # the default's 91 characters: 3 px cells under a 2 px margin, so row 17 spans y = 53..55
    reader.locator("svg.text-map").first.click(position={"x": 4, "y": 54})
    assert slider.input_value() == "17"
    assert_page_equals_cli(reader, DEFAULT)


def test_the_keyboard_reaches_the_field_switches_slider_and_cells(reader):
    reader.locator("#text-field").focus()
    order = []
    for _ in range(12):
        reader.keyboard.press("Tab")
        order.append(reader.evaluate("document.activeElement.id || document.activeElement.tagName"))
    assert "text-off-0-0" in order and "text-position" in order
    reader.locator("#text-position").focus()
    reader.keyboard.press("Tab")
    cell = reader.locator(":focus")
    expect(cell).to_have_attribute("data-k", str(len(DEFAULT) - 1))
    readout = reader.locator("#fig-text-maps .train-readout")
    expect(readout).to_have_text(cell.locator("title").text_content())
    reader.keyboard.press("ArrowLeft")
    expect(reader.locator(":focus")).to_have_attribute("data-k", str(len(DEFAULT) - 2))
    reader.keyboard.press("ArrowUp")
    expect(reader.locator(":focus")).to_have_attribute("data-q", str(len(DEFAULT) - 2))
    assert reader.locator("#text-position").input_value() == str(len(DEFAULT) - 2)
    expect(readout).to_have_text(reader.locator(":focus").locator("title").text_content())
    reader.keyboard.press("ArrowRight")  # the row's last cell: nowhere further right
    expect(reader.locator(":focus")).to_have_attribute("data-k", str(len(DEFAULT) - 2))
    keys = reader.locator("svg.text-map rect[data-q]").evaluate_all("cells => cells.map((c) => c.dataset.k)")
    assert keys == [str(len(DEFAULT) - 2)] * 8  # every map's readable cell follows


def test_pointing_at_a_cell_of_the_outlined_row_names_its_weight(reader):
    """The default's 91 characters: 3 px cells under a 2 px margin, so the outlined row 17's cell at key 4 spans
    x = 14..16, y = 53..55 from the map's corner."""
    reader.locator("#text-position").fill("17")
    picture = reader.locator("svg.text-map").nth(2)
    box = picture.bounding_box()
    reader.mouse.move(box["x"] + 15, box["y"] + 54)
    weight = cli(DEFAULT)["heads"][2]["weights"][17][4]
    expect(reader.locator("#fig-text-maps .train-readout")).to_have_text(
        f"layer 0 head 2: query 17 {DEFAULT[17]!r} on key 4 {DEFAULT[4]!r}: {weight:.4f}")


# --- the seeds -------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [1, 2])
def test_another_seed_reads_the_text_with_its_own_model_and_shows_its_own_heads(reader, seed):
    reader.locator(f"#text-seed-{seed}").check()
    settle(reader)
    assert_page_equals_cli(reader, DEFAULT, seed=seed)
    expect(reader.locator("#fig-text-card caption")).to_contain_text(f"Seed {seed}: ")
    roles = mha.text.load(seed).measurements["roles"]
    expect(reader.locator("#fig-text-card tbody tr")).to_have_count(len(roles))
    reader.locator("#text-field").press("End")
    reader.locator("#text-field").press("Control+End")
    reader.locator("#text-field").press_sequentially("!")  # typed at the end: seed's KV cache, not seed 0's
    settle(reader)
    assert_page_equals_cli(reader, DEFAULT + "!", seed=seed)
    reader.locator("#text-seed-0").check()
    settle(reader)
    expect(reader.locator("#fig-text-card caption")).to_contain_text("Seed 0: ")
    assert_page_equals_cli(reader, DEFAULT + "!")


def test_the_seeds_are_reached_and_picked_with_the_keyboard(reader):
    reader.locator("#text-seed-0").focus()
    reader.keyboard.press("ArrowRight")
    expect(reader.locator("#text-seed-1")).to_be_checked()
    settle(reader)
    expect(reader.locator("#fig-text-card caption")).to_contain_text("Seed 1: ")


# --- the experiment --------------------------------------------------------------------------------

@pytest.mark.parametrize("text, off", [(DEFAULT, ()), ("ticket zz91. ref zz91", ()), (DEFAULT, ((0, 1),)),
                                       ("tool: k7q2xm\nai: k7q3yn", ())])  # the last: the reader's near-duplicate
def test_the_experiment_prints_mha_texts_probabilities_for_the_readers_text(reader, text, off):
    for layer, head in off:
        reader.locator(f"#text-off-{layer}-{head}").check()
        settle(reader)
    reader.locator("#text-field").fill(text)
    settle(reader)
    assert_experiment_printed(reader, text, off)
    expect(reader.locator("#fig-text-near")).to_have_attribute("aria-busy", "false")


def assert_experiment_printed(reader, text, off=()):
    """The experiment box prints mha.text's probabilities for the text, and each prompt whole."""
    numbers, prompts, found = experiment_numbers(text, off)
    near = reader.locator("#fig-text-near").text_content()
    for prompt in {prompt for prompt, _ in numbers}:
        ends = [p for (said, _), p in numbers.items() if said == prompt]  # the end, then the near-duplicate's
        for printed in (pair(*ends) if len(ends) == 2 else [two(*ends)]):
            assert printed in near
    for prompt in prompts:  # each prompt shown whole, spaces and newlines visible
        assert shown(prompt) in near


def test_the_questions_invitation_switching_off_the_head_it_names_shows_its_p_in_the_experiments_first_line(reader):
    """Section 9's question asks what switching off one induction head does to the default id's end, then invites
    the reader to do it and read the experiment's first line: there, p is the answer's number (0.39, then 0.0029 with
    layer 1 head 2 off, as test_questions works them out in numpy), and the caption of that head's map says it is off."""
    from figures import questions

    answer = questions.answers()["text"]
    question = reader.locator('[data-question="text"]')
    question.locator(f'input[value="{answer["answer"]}"]').check()
    question.get_by_role("button", name="Check my answer").click()
    expect(reader.locator("#q-text-answer")).to_contain_text(answer["explanation"])
    assert questions.text_heads()[0] == (1, 2) and "to 0.0029, " in answer["explanation"]
    first = reader.locator("#fig-text-near p").first
    expect(first).to_contain_text("(p = 0.39 over its 3 characters)")
    reader.locator("#text-off-1-2").check()
    settle(reader)
    expect(first).to_contain_text("p = 0.0029 over its 3 characters")  # two significant digits
    expect(reader.locator("#fig-text-maps figure.off figcaption")).to_contain_text("layer 1 head 2 (off, adds nothing)")


def test_the_experiment_is_dimmed_from_the_edit_until_its_new_numbers_are_drawn(reader):
    """Between an edit and its experiment's new p values (100-200 ms of reading), the old text's are shown dimmed."""
    before = reader.locator("#fig-text-near").text_content()
    at_edit = reader.evaluate("""() => {
        const field = document.querySelector('#text-field');
        field.value = 'tool: zz91q\\nai: zz91q';
        field.dispatchEvent(new Event('input', {bubbles: true}));
        const near = document.querySelector('#fig-text-near');
        return [near.getAttribute('aria-busy'), getComputedStyle(near).opacity, near.textContent];
    }""")
    assert at_edit[0] == "true" and float(at_edit[1]) < 1 and at_edit[2] == before  # the old numbers, dimmed
    settle(reader)
    near = reader.locator("#fig-text-near")
    expect(near).to_have_attribute("aria-busy", "false")
    expect(near).to_contain_text(shown("tool: zz91q\nai: zz"))
    assert float(near.evaluate("e => getComputedStyle(e).opacity")) == 1


AT_KEY = """(c) => {
    const field = document.querySelector('#text-field');
    field.value += c;
    field.dispatchEvent(new Event('input', {bubbles: true}));
    return [document.querySelector('#fig-text-near').getAttribute('aria-busy'), document.body.dataset.text];
}"""


def test_a_key_that_leaves_the_experiments_prompts_runs_none_and_one_that_moves_them_runs_them_again(reader):
    """Typed after the id, " ok" leaves the experiment's prompts, continuations and words as they were: its numbers
    (mha.text's for the new text) are on screen at once, never dimmed. Then " k7" and a "q": the last word becomes the
    first three characters of the id, so the prompt is the text as it stands, and the experiment runs again."""
    field = reader.locator("#text-field")
    field.press("Control+End")
    shown_before = reader.locator("#fig-text-near").text_content()
    for c in " ok":
        assert reader.evaluate(AT_KEY, c) == ["false", "ready"]
    assert experiment_numbers(DEFAULT + " ok")[:2] == experiment_numbers(DEFAULT)[:2]
    assert reader.locator("#fig-text-near").text_content() == shown_before
    assert_experiment_printed(reader, DEFAULT + " ok")
    for c in " k7":
        reader.evaluate(AT_KEY, c)
    settle(reader)
    assert reader.evaluate(AT_KEY, "q") == ["true", "busy"]
    settle(reader)
    assert reader.locator("#fig-text-near").text_content() != shown_before
    assert_experiment_printed(reader, DEFAULT + " ok k7q")
    expect(reader.locator("#fig-text-near")).to_have_attribute("aria-busy", "false")


def test_an_experiment_that_cannot_run_says_why(reader):
    reader.locator("#text-field").fill("hello there")
    settle(reader)
    with pytest.raises(ValueError) as why:
        lesson.near_duplicate_prompts("hello there", MODEL.context)
    expect(reader.locator("#fig-text-near")).to_have_text(str(why.value))


def test_no_accessibility_violations_light_and_dark_after_a_switch_and_bad_input(browser, site_url):
    page, guard = open_page(browser, site_url)
    page.locator("#text").scroll_into_view_if_needed()
    settle(page)
    page.locator("#text-off-1-0").check()
    settle(page)
    page.locator("#text-field").fill("tool: caf\u00e9")
    expect(page.locator("#text-field")).to_have_attribute("aria-invalid", "true")
    assert_no_axe_violations_light_and_dark(page, context="#text")
    page.context.close()
    assert not guard.problems(), guard.problems()
