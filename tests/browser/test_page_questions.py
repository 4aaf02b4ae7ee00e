"""Predict, then check, in the browser: no spoiler before the reader answers, a verdict and the
explanation after, by mouse or keyboard, and all of it before Python has loaded (or if it never does).
Picking another answer clears the verdict and hides the explanation, and what waited for it, again.

The explanations' numbers are checked against the hand-worked ones in tests/unit/test_questions.py;
here, that the page shows them only after a check.
"""

import json
import re

import pytest
from playwright.sync_api import expect

from conftest import READY_TIMEOUT_MS, WASM, assert_no_axe_violations_light_and_dark

QUESTIONS = ["recipe", "worked", "exercise", "cross", "sharing", "prompts", "trained", "text"]


def fieldset(page, qid):
    return page.locator(f'fieldset[data-question="{qid}"]')


def answer(page, qid):
    return page.locator(f"#q-{qid}-answer")


def check_button(page, qid):
    return fieldset(page, qid).get_by_role("button", name="Check my answer")


def expect_waiting(page, qid):
    """Before a check: no verdict, no explanation; what gives the answer away hidden, its note shown."""
    expect(answer(page, qid)).to_be_empty()
    expect(answer(page, qid)).not_to_have_attribute("data-verdict", re.compile(".*"))
    for waiting in page.locator(f'[data-after="{qid}"]').all():
        expect(waiting).to_be_hidden()
    for note in page.locator(f'[data-before="{qid}"]').all():
        expect(note).to_be_visible()


def expect_checked(page, qid, verdict, answers):
    expect(answer(page, qid)).to_have_attribute("data-verdict", verdict)
    expect(answer(page, qid)).to_contain_text(answers[qid]["explanation"])
    expect(answer(page, qid).get_by_text(answers[qid]["explanation"])).to_be_visible()
    for shown in page.locator(f'[data-after="{qid}"]').all():
        expect(shown).to_be_visible()
    for note in page.locator(f'[data-before="{qid}"]').all():
        expect(note).to_be_hidden()


def wrong_value(answers, qid, page):
    values = fieldset(page, qid).get_by_role("radio").evaluate_all("radios => radios.map(r => r.value)")
    return next(v for v in values if v != answers[qid]["answer"])


@pytest.mark.expected_console(r"Failed to load resource", r"Failed to fetch", r"wasm instantiation failed")
def test_questions_hold_no_spoiler_and_answer_before_python_and_without_it(page, site_url, built_site):
    """The wasm is refused, so Python never starts: every question still checks its answer and shows what
    waited for it (section 2's cost line, drawn at build time)."""
    answers = json.loads((built_site / "answers.json").read_text())
    page.route(WASM, lambda route: route.abort())
    page.goto(site_url)
    text = page.locator("main").inner_text()
    for qid in QUESTIONS:
        assert answers[qid]["explanation"] not in text
        assert not any(verdict in text for verdict in answers[qid]["verdicts"].values())
        expect_waiting(page, qid)
    expect(page.locator("body")).to_have_attribute("data-python", "failed", timeout=READY_TIMEOUT_MS)

    check_button(page, "exercise").click()
    expect(answer(page, "exercise")).to_have_text("Pick an answer first: the point is to commit before you look.")
    fieldset(page, "exercise").get_by_label("head 0 only").check()
    check_button(page, "exercise").click()
    expect(answer(page, "exercise")).to_contain_text(answers["exercise"]["verdicts"]["head-0"])
    expect_checked(page, "exercise", "wrong", answers)

    line = page.locator("#fig-recipe-line .cost-line")
    expect(line).to_be_hidden()
    fieldset(page, "recipe").get_by_label("the 2 heads").check()
    check_button(page, "recipe").click()
    expect_checked(page, "recipe", "wrong", answers)
    expect(line).to_be_visible()
    expect(line).to_contain_text("the same as one head of width 4")


def test_a_changed_answer_clears_the_verdict_and_hides_the_explanation_again(lesson, built_site):
    """(The page is the module's shared one: each test here checks each question from whatever answer it holds.)"""
    answers = json.loads((built_site / "answers.json").read_text())
    page = lesson
    for qid in QUESTIONS:
        fieldset(page, qid).locator(f'input[value="{answers[qid]["answer"]}"]').check()
        check_button(page, qid).click()
        expect_checked(page, qid, "right", answers)
        fieldset(page, qid).locator(f'input[value="{wrong_value(answers, qid, page)}"]').check()
        expect_waiting(page, qid)
        check_button(page, qid).click()
        expect_checked(page, qid, "wrong", answers)


def test_every_question_answers_right_and_wrong_from_the_keyboard(lesson, built_site):
    """Keys only, once the radio group has the focus: Space picks, Tab reaches Check, Enter checks and the
    focus stays on Check; Shift+Tab goes back to the chosen option, an arrow key picks the next one (which
    clears the verdict), and Space on Check checks again."""
    answers = json.loads((built_site / "answers.json").read_text())
    page = lesson
    for qid in QUESTIONS:
        options = fieldset(page, qid).get_by_role("radio")
        values = options.evaluate_all("radios => radios.map(r => r.value)")
        options.first.focus()
        page.keyboard.press("Space")  # the first option, chosen by keyboard
        expect(options.first).to_be_checked()
        page.keyboard.press("Tab")  # leaves the radio group for the Check button
        expect(check_button(page, qid)).to_be_focused()
        page.keyboard.press("Enter")
        expect_checked(page, qid, "right" if values[0] == answers[qid]["answer"] else "wrong", answers)
        expect(check_button(page, qid)).to_be_focused()

        page.keyboard.press("Shift+Tab")  # back into the group, on the chosen option
        expect(options.first).to_be_focused()
        page.keyboard.press("ArrowDown")  # the next option: a changed answer, not yet checked
        expect(options.nth(1)).to_be_checked()
        expect_waiting(page, qid)
        for _ in range((values.index(answers[qid]["answer"]) - 1) % len(values)):
            page.keyboard.press("ArrowDown")  # on round to the right answer (the group wraps)
        expect(fieldset(page, qid).locator(f'input[value="{answers[qid]["answer"]}"]')).to_be_checked()
        page.keyboard.press("Tab")
        expect(check_button(page, qid)).to_be_focused()
        page.keyboard.press("Space")
        expect_checked(page, qid, "right", answers)
        expect(check_button(page, qid)).to_be_focused()


def test_no_accessibility_violations_light_and_dark_once_every_question_is_answered(lesson, built_site):
    """What waited for a check (section 2's cost line) is hidden when test_page_lesson.py runs axe: run it here."""
    answers = json.loads((built_site / "answers.json").read_text())
    page = lesson
    for qid in QUESTIONS:
        fieldset(page, qid).locator(f'input[value="{answers[qid]["answer"]}"]').check()
        check_button(page, qid).click()
        expect_checked(page, qid, "right", answers)
    assert_no_axe_violations_light_and_dark(page)
