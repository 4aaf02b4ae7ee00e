"""Section 10 in a browser: the chart is drawn before Python runs, follows the distractor count (0 to 1,000),
the sentence under it quotes the same numbers, and it all fits a phone.

References: the weights worked by hand in tests/unit/test_competition.py's docstring, repeated here.
"""

import re

from playwright.sync_api import expect

from conftest import open_page, wait_ready

HAND = {  # [head 0, head 1, one wide head] on token 0 among k distractors (tests/unit/test_competition.py)
    0: ["0.9442", "0.1956", "0.7311"],
    1: ["0.9411", "0.0454", "0.6652"],
    30: ["0.8592", "0.0020", "0.1842"],
    1000: ["0.2197", "0.0001", "0.0073"],
}


SAID = {  # the same, as the sentence prints a weight: 2 decimals, 2 significant digits below 0.01
    0: ["0.94", "0.20", "0.73"],
    1: ["0.94", "0.05", "0.67"],
    30: ["0.86", "0.0020", "0.18"],   # head 1: 0.00195
    1000: ["0.22", "0.000059", "0.0073"],  # head 1: 1 / (1 + e^sqrt2 + 1000 e^(2 sqrt2)) = 5.9e-05
}


def sentence(words, k):
    head_0, head_1, wide = SAID[k]
    return f"With {words}, head 0 keeps {head_0} of its row on token 0, the one wide head {wide} and head 1 {head_1}."


def rule_x(page):
    return float(page.locator("#competition-chart svg.wide .rule").get_attribute("x1"))


def test_the_chart_has_a_line_per_head_and_is_hidden_from_screen_readers(lesson):
    chart = lesson.locator("#competition-chart svg.wide")
    expect(chart).to_have_attribute("aria-hidden", "true")
    expect(lesson.locator("#competition-chart svg.narrow")).to_be_hidden()  # the phone's own drawing
    expect(chart.locator("polyline")).to_have_class(["line head-0 held", "line head-1", "line wide"])
    expect(chart.locator(".line-name")).to_have_text(["head 0", "head 1", "one wide head"])
    stroke = chart.locator("polyline.head-0").evaluate("e => getComputedStyle(e).stroke")
    assert stroke not in ("none", "rgb(0, 0, 0)"), stroke  # coloured by competition.css, not the default


def test_the_prerendered_sentence_quotes_the_default_count(page, site_url):
    """Before Python runs, the sentence under the chart already holds the numbers of the state shown."""
    page.goto(site_url)
    expect(page.locator("#competition-now")).to_have_text(sentence("no distractors", 0))
    wait_ready(page)
    expect(page.locator("#competition-now")).to_have_text(sentence("no distractors", 0))


def test_typing_a_count_redraws_the_chart_the_tables_and_the_sentence(lesson):
    field, now = lesson.locator("#distractors"), lesson.locator("#competition-now")
    label = lesson.locator("#competition-chart svg.wide .now-label")
    table = lesson.get_by_role("table", name="weight on the relevant token", exact=True)
    field.fill("0")
    expect(now).to_have_text(sentence("no distractors", 0))
    start = rule_x(lesson)
    steps = []
    for k, words in ((1, "1 distractor"), (30, "30 distractors"), (1000, "1,000 distractors")):
        field.fill(str(k))
        expect(label).to_have_text(words)
        expect(now).to_have_text(sentence(words, k))
        expect(table.locator("thead th").nth(2)).to_have_text(words)
        expect(table.locator("tbody tr td:nth-of-type(2)")).to_have_text(HAND[k])
        current = lesson.locator("#competition-curve tr[aria-current=true]")
        expect(current.locator("th")).to_have_text(f"{k:,}")
        expect(current.locator("td")).to_have_text(HAND[k])
        expect(lesson.locator("#competition-chart svg.wide circle")).to_have_count(3)
        steps.append(rule_x(lesson))
    assert start < steps[0] < steps[1] < steps[2]
    assert steps[1] - steps[0] > 0.5 * (steps[2] - steps[1])  # a log axis: 1 -> 30 is not 1/33 of 30 -> 1000
    field.fill("1001")  # refused: the marker and the sentence stay
    expect(lesson.locator("#distractors-error")).to_contain_text("between 0 and 1,000")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(label).to_have_text("1,000 distractors")
    expect(now).to_have_text(sentence("1,000 distractors", 1000))
    field.fill("1")
    expect(now).to_have_text(sentence("1 distractor", 1))
    expect(lesson).to_have_url(re.compile(r"d=1(&|$)"))


def test_head_0s_line_and_the_charts_table_wait_for_check(lesson):
    """Issue 28, review item 12: section 10's question asks what head 0 keeps at 1,000; its line, its row, the
    table of the chart's numbers, the live sentence and the paragraphs on the leads wait for Check, as section 2's
    counts do. Another pick hides them again."""
    held = lesson.locator("#competition-chart svg.wide polyline.head-0")
    question = lesson.locator("fieldset[data-question=prompts]")
    question.locator("input[type=radio]").first.check()  # a new pick: what Check showed waits again
    table = lesson.get_by_role("table", name="weight on the relevant token", exact=True)
    lesson.locator("#distractors").fill("1000")  # review item 12: typing the count showed head 0's 0.2197
    expect(table.locator("thead th").nth(2)).to_have_text("1,000 distractors")
    expect(held).to_have_css("visibility", "hidden")
    expect(lesson.locator(".competition-details")).to_be_hidden()
    expect(table.locator("tbody tr.held")).to_be_hidden()
    expect(table.locator("tbody tr:not(.held)")).to_have_count(2)
    expect(table.locator("tbody tr:not(.held)").first).to_be_visible()
    expect(lesson.locator("#competition-now")).to_be_hidden()  # its paragraph, and the next, wait too
    expect(lesson.get_by_text("though not forever")).to_be_hidden()
    expect(lesson.locator("#competition-chart svg.wide polyline.head-1")).to_have_css("visibility", "visible")
    question.get_by_role("button", name="Check my answer").click()
    expect(held).to_have_css("visibility", "visible")
    expect(lesson.locator(".competition-details")).to_be_visible()
    expect(table.locator("tbody tr.held")).to_be_visible()
    expect(lesson.locator("#competition-now")).to_have_text(sentence("1,000 distractors", 1000))
    expect(lesson.locator("#competition-now")).to_be_visible()
    expect(lesson.get_by_text("though not forever")).to_be_visible()


def test_the_chart_and_its_table_fit_a_phone(browser, site_url):
    page, guard = open_page(browser, site_url, "#d=1000", viewport={"width": 375, "height": 800},
                            color_scheme="dark")
    expect(page.locator("#competition-chart svg.narrow .now-label")).to_have_text("1,000 distractors")
    expect(page.locator("#competition-now")).to_have_text(sentence("1,000 distractors", 1000))
    expect(page.locator("#competition-chart svg.wide")).to_be_hidden()  # a drawing for the width, not scaled down
    box = page.locator("#competition-chart svg.narrow").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375
    names = [page.locator("#competition-chart svg.narrow .line-name").nth(i).bounding_box() for i in range(3)]
    for i, a in enumerate(names):  # "one wide head" and "head 1" no longer overlap
        for b in names[i + 1:]:
            assert a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"], names
    region = page.locator("#competition-table")
    assert region.evaluate("e => e.scrollWidth <= e.clientWidth")
    page.context.close()
    assert not guard.problems(), guard.problems()
