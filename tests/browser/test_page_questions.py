"""Predict, then check, in the browser: no spoiler before the reader answers, a verdict and the
explanation after, by mouse or keyboard, and all of it before Python has loaded (or if it never does).

The explanations' numbers are checked against the hand-worked ones in tests/unit/test_questions.py;
here, that the page shows them only after a check.
"""

import json

import pytest
from playwright.sync_api import expect

from conftest import READY_TIMEOUT_MS, WASM, wait_ready

QUESTIONS = ["worked", "exercise", "cross", "sharing", "prompts"]


def fieldset(page, qid):
    return page.locator(f'fieldset[data-question="{qid}"]')


def answer(page, qid):
    return page.locator(f"#q-{qid}-answer")


@pytest.mark.expected_console(r"Failed to load resource", r"Failed to fetch", r"wasm instantiation failed")
def test_questions_hold_no_spoiler_and_answer_before_python_and_without_it(page, site_url, built_site):
    """The wasm is refused, so Python never starts: every question still checks its answer."""
    answers = json.loads((built_site / "answers.json").read_text())
    page.route(WASM, lambda route: route.abort())
    page.goto(site_url)
    text = page.locator("main").inner_text()
    for qid in QUESTIONS:
        assert answers[qid]["explanation"] not in text
        assert not any(verdict in text for verdict in answers[qid]["verdicts"].values())
    expect(page.locator("body")).to_have_attribute("data-python", "failed", timeout=READY_TIMEOUT_MS)

    fieldset(page, "exercise").get_by_role("button", name="Check my answer").click()
    expect(answer(page, "exercise")).to_have_text("Pick an answer first: the point is to commit before you look.")
    fieldset(page, "exercise").get_by_label("head 0 only").check()
    fieldset(page, "exercise").get_by_role("button", name="Check my answer").click()
    expect(answer(page, "exercise")).to_contain_text(answers["exercise"]["verdicts"]["head-0"])
    expect(answer(page, "exercise")).to_contain_text(answers["exercise"]["explanation"])
    expect(answer(page, "exercise")).to_have_attribute("data-verdict", "wrong")


def test_every_question_answers_right_and_wrong_from_the_keyboard(page, site_url, built_site):
    answers = json.loads((built_site / "answers.json").read_text())
    page.goto(site_url)
    wait_ready(page)
    for qid in QUESTIONS:
        options = fieldset(page, qid).get_by_role("radio")
        options.first.focus()
        page.keyboard.press("Space")  # the first option, chosen by keyboard
        first = options.first.get_attribute("value")
        page.keyboard.press("Tab")  # leaves the radio group for the Check button
        expect(fieldset(page, qid).get_by_role("button", name="Check my answer")).to_be_focused()
        page.keyboard.press("Enter")
        verdict = "right" if first == answers[qid]["answer"] else "wrong"
        expect(answer(page, qid)).to_have_attribute("data-verdict", verdict)
        fieldset(page, qid).locator(f'input[value="{answers[qid]["answer"]}"]').check()
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        expect(answer(page, qid)).to_have_attribute("data-verdict", "right")
        expect(answer(page, qid)).to_contain_text(answers[qid]["explanation"])
