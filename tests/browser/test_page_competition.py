"""Section 8 in a browser: the chart is drawn before Python runs, follows the distractor count, and fits a phone.

References: the closed forms worked by hand in tests/unit/test_competition.py, repeated here.
"""

import math
import re

from playwright.sync_api import expect

from conftest import open_page


def closed_form(k):
    """[head 0, head 1, one wide head]: the last token's weight on token 0 among k distractors.

    Head 0 scores 8/sqrt2 (token 0), 4/sqrt2 (itself), 0 (each distractor); head 1 scores every
    token the same; the wide head scores 6, 4, 2 (tests/unit/test_competition.py works them out).
    """
    a, b = math.exp(8 / math.sqrt(2)), math.exp(4 / math.sqrt(2))
    return [a / (a + b + k), 1 / (k + 2), math.exp(6) / (math.exp(6) + math.exp(4) + k * math.exp(2))]


def rule_x(page):
    return float(page.locator("#competition-chart .rule").get_attribute("x1"))


def test_the_chart_has_a_line_per_head_and_is_hidden_from_screen_readers(lesson):
    chart = lesson.locator("#competition-chart svg")
    expect(chart).to_have_attribute("aria-hidden", "true")
    expect(chart.locator("polyline")).to_have_class(["line head-0", "line head-1", "line wide"])
    expect(chart.locator(".line-name")).to_have_text(["head 0", "head 1", "one wide head"])
    stroke = chart.locator("polyline.head-0").evaluate("e => getComputedStyle(e).stroke")
    assert stroke not in ("none", "rgb(0, 0, 0)"), stroke  # coloured by competition.css, not the default


def test_typing_a_count_moves_the_marker_and_marks_the_table_row(lesson):
    lesson.locator("#distractors").fill("0")
    start = rule_x(lesson)
    lesson.locator("#distractors").fill("12")
    expect(lesson.locator("#competition-chart .now-label")).to_have_text("12 distractors")
    assert rule_x(lesson) > start
    expect(lesson.locator("#competition-chart circle")).to_have_count(3)
    current = lesson.locator("#competition-curve tr[aria-current=true]")
    expect(current.locator("th")).to_have_text("12")
    expect(current.locator("td")).to_have_text([f"{w:.4f}" for w in closed_form(12)])
    table = lesson.get_by_role("table", name="weight on the relevant token", exact=True)
    expect(table.locator("tbody tr td:nth-of-type(2)")).to_have_text([f"{w:.4f}" for w in closed_form(12)])
    lesson.locator("#distractors").fill("31")  # refused: the marker stays
    expect(lesson.locator("#distractors-error")).to_contain_text("between 0 and 30")
    expect(lesson.locator("#competition-chart .now-label")).to_have_text("12 distractors")
    lesson.locator("#distractors").fill("1")
    expect(lesson.locator("#competition-chart .now-label")).to_have_text("1 distractor")
    expect(lesson).to_have_url(re.compile(r"d=1"))


def test_the_chart_and_its_table_fit_a_phone(browser, site_url):
    page, guard = open_page(browser, site_url, "#d=30", viewport={"width": 375, "height": 800}, color_scheme="dark")
    expect(page.locator("#competition-chart .now-label")).to_have_text("30 distractors")
    box = page.locator("#competition-chart svg").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375
    region = page.locator("#competition-table")
    assert region.evaluate("e => e.scrollWidth <= e.clientWidth")
    page.context.close()
    assert not guard.problems(), guard.problems()
