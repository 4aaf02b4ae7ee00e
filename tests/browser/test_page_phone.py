"""The whole page at a phone's width (375 px), in headless Chromium: nothing is cut off without a sign.

What does not fit the column sits in a scroll region (a named, focusable role=region), and the region
shows that it scrolls: style.css's scroll shadows, gradients in the region's background, whose covers
scroll with the content (background-attachment: local) so that a shadow shows only at an edge with more
beyond it. A cell's printout scrolls the same way. Everything else fits, and the page itself never
scrolls sideways. One page load, with section 8's build-time run loaded, a cell's wide printout, every
<details> open and every question answered (the counts and tables that wait for an answer show too);
checked in light and in dark.
"""

import base64
import re

import pytest
from playwright.sync_api import expect

from conftest import READY_TIMEOUT_MS, open_page

PHONE = {"width": 375, "height": 800}
# Code for the one_head cell whose printout is wider than a phone: the weights as Python prints them, one line.
WIDE_PRINT = """import mha
tokens = [[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 1.0, 0.0]]
print(mha.multi_head_attention(tokens, 2).weights)
"""
SET_CODE = """(area, text) => { area.value = text; area.dispatchEvent(new Event("input")); }"""  # app/cells.py's way

# Every rendered element wider inside than its box, less SVG internals and the code editors (a text field
# scrolls to its caret). For each: whether it is, or sits in, a scroll region with the cue.
OVERFLOWING = """() => {
  const region = (e) => {
    const style = getComputedStyle(e);
    return {
      id: e.id || e.className, tag: e.tagName.toLowerCase(), role: e.getAttribute('role'),
      name: e.getAttribute('aria-label') || '',
      focusable: e.hasAttribute('tabindex') && e.tabIndex === 0,
      scrolls: ['auto', 'scroll'].includes(style.overflowX),
      gradients: (style.backgroundImage.match(/gradient\\(/g) || []).length,
      attachment: style.backgroundAttachment,
    };
  };
  const found = [];
  for (const e of document.querySelectorAll('body *')) {
    if (e.closest('svg, textarea, .cm-editor') || !e.getClientRects().length || e.clientWidth === 0) continue;
    if (e.scrollWidth <= e.clientWidth + 1) continue;
    const style = getComputedStyle(e);
    const scroller = ['auto', 'scroll'].includes(style.overflowX) ? e : null;
    const outer = e.closest('[role=region]');
    found.push({
      what: `${e.tagName.toLowerCase()}#${e.id}.${e.className}`, text: e.textContent.trim().slice(0, 50),
      overflow: style.overflowX, width: e.clientWidth, content: e.scrollWidth,
      region: outer ? region(outer) : null, scroller: scroller ? region(scroller) : null,
    });
  }
  return found;
}"""


# Each region (or printout) that scrolls at this width: its id, the colour it sits on (its own background or
# its nearest ancestor's, the first that is not transparent) and the colour of its covers (the first gradient's).
SCROLLING = """() => [...document.querySelectorAll('[role=region], output')]
  .filter((e) => e.getClientRects().length && e.scrollWidth > e.clientWidth + 1)
  .map((e) => {
    let under = e;
    while (under && getComputedStyle(under).backgroundColor === 'rgba(0, 0, 0, 0)') under = under.parentElement;
    const cover = getComputedStyle(e).backgroundImage.match(/^linear-gradient\\([^,]*, (rgb\\([^)]*\\))/);
    return {id: e.id, backdrop: getComputedStyle(under || document.body).backgroundColor, cover: cover && cover[1]};
  })"""

# In a blank page (no CSP there): how much of each of a screenshot's columns xs is the backdrop's colour. A shadow
# tints the whole column; a clean edge is the backdrop except where a number or a filled cell reaches it.
PLAIN_SHARE = """async ([png, xs, rgb]) => {
  const image = new Image();
  image.src = 'data:image/png;base64,' + png;
  await image.decode();
  const canvas = new OffscreenCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  return xs.map((x) => {
    const column = context.getImageData(x, 0, 1, image.height).data;
    let plain = 0;
    for (let y = 0; y < image.height; y++) {
      const d = [0, 1, 2].map((c) => Math.abs(column[4 * y + c] - rgb[c]));
      plain += Math.max(...d) <= 6;
    }
    return plain / image.height;
  });
}"""


def described(found):
    """One line an element: what it is, its widths, its text, and the region it is in (if any)."""
    return "\n".join(f"{f['what']} ({f['content']} px in {f['width']}, overflow {f['overflow']}; "
                     f"region {f['scroller'] or f['region']}): {f['text']!r}" for f in found)


def cued(region):
    """A scroll region a reader can find, reach and see scrolling: named, focusable, and shadowed. A region, or
    a cell's printout (an <output>, a live status)."""
    return (region is not None and (region["role"] == "region" or region["tag"] == "output")
            and region["name"].strip() and region["focusable"] and region["scrolls"] and region["gradients"] >= 4
            and "local" in region["attachment"])


@pytest.fixture(scope="module")
def phone(browser, site_url):
    """One page at 375 px: Python ready, section 8's run loaded, a cell's wide printout, every details open,
    every question answered."""
    page, guard = open_page(browser, site_url, viewport=PHONE, reduced_motion="reduce")
    page.locator("#trained").scroll_into_view_if_needed()  # the section loads its run once it is near
    expect(page.locator("body")).to_have_attribute("data-training", "ready", timeout=READY_TIMEOUT_MS)
    for details in page.locator("main details").all():
        details.evaluate("d => { d.open = true; }")
    cell = page.locator("#cell-one-head")
    cell.scroll_into_view_if_needed()
    page.locator("#cell-one-head-code").evaluate(SET_CODE, WIDE_PRINT)
    cell.get_by_role("button", name="Run cell: one head", exact=True).click()
    expect(page.locator("#cell-one-head-status")).to_have_text(re.compile(r"^Ran "), timeout=READY_TIMEOUT_MS)
    for question in page.locator("fieldset.predict").all():
        question.locator("input[type=radio]").first.check()
        question.get_by_role("button", name="Check my answer").click()
        expect(question.locator(".predict-answer")).not_to_be_empty()
    yield page
    page.context.close()
    assert not guard.problems(), guard.problems()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_at_375_px_nothing_is_cut_off_without_a_sign(phone, scheme):
    phone.emulate_media(color_scheme=scheme)
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    found = phone.evaluate(OVERFLOWING)
    clipped = [f for f in found if f["overflow"] in ("hidden", "clip")]
    if clipped:  # text under overflow: hidden is text no one can read
        pytest.fail("clipped:\n" + described(clipped), pytrace=False)
    uncued = [f for f in found if not cued(f["scroller"] or f["region"])]
    if uncued:
        pytest.fail("wider than its box, and not in a scroll region that shows it:\n" + described(uncued),
                    pytrace=False)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_scroll_regions_shadow_shows_on_the_side_with_more(phone, scheme):
    """Scrolled to its start, a region is shadowed on the right only; scrolled to its end, on the left only.
    Its covers are the colour it sits on (the panel's, or the page's): else they would show as bands."""
    phone.emulate_media(color_scheme=scheme)
    scrolling = phone.evaluate(SCROLLING)
    assert {"kv-models", "fig-probe-weights", "cell-one-head-output"} <= {r["id"] for r in scrolling}, scrolling
    blank = phone.context.new_page()
    try:
        for found in scrolling:
            assert found["cover"] == found["backdrop"], found
            region = phone.locator(f"#{found['id']}")
            rgb = [int(n) for n in re.findall(r"\d+", found["backdrop"])]
            inside = region.evaluate("e => [e.clientLeft + 1, e.clientLeft + e.clientWidth - 2]")  # within borders
            edges = {}
            for end, scroll in (("start", "0"), ("end", "e.scrollWidth")):
                region.evaluate(f"e => {{ e.scrollLeft = {scroll}; }}")
                png = base64.b64encode(region.screenshot(animations="disabled")).decode()
                edges[end] = blank.evaluate(PLAIN_SHARE, [png, inside, rgb])  # one decode, both edges
            (start_left, start_right), (end_left, end_right) = edges["start"], edges["end"]
            assert start_left > 0.5 and end_right > 0.5, (found["id"], edges)  # no more that way: no shadow
            assert start_right < 0.2 and end_left < 0.2, (found["id"], edges)  # more that way: a shadow
            region.evaluate("e => { e.scrollLeft = 0; }")
    finally:
        blank.close()


# The smallest text each section draws, in CSS px as it lands on the screen: a text node's font size, and in an
# SVG the font size times the drawing's scale (getScreenCTM), so a desktop chart scaled down to a phone counts
# at the size it is seen. Text that is not shown (display: none, visibility: hidden) does not count.
SMALLEST_TEXT = """(skip) => [...document.querySelectorAll('main > section')].filter((s) => s.id !== skip).map((section) => {
  let smallest = {size: Infinity, what: ''};
  const walker = document.createTreeWalker(section, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const e = node.parentElement;
    if (!node.textContent.trim() || e.closest('option, textarea') || !e.getClientRects().length) continue;
    const style = getComputedStyle(e);
    if (style.visibility !== 'visible') continue;
    const m = e instanceof SVGElement ? e.getScreenCTM() : null;  // rotated text too: the matrix's scale
    const scale = m ? Math.hypot(m.a, m.b) : 1;
    const size = parseFloat(style.fontSize) * scale;
    if (size < smallest.size) smallest = {size, what: `${e.tagName.toLowerCase()}.${e.getAttribute('class') || ''}: ${node.textContent.trim().slice(0, 30)}`};
  }
  return {section: section.id, ...smallest};
})"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_at_375_px_no_text_is_smaller_than_11_px_in_any_section(phone, scheme):
    """Issue 30: on a phone nothing is drawn under 11 px: charts are drawn for the width (figures/competition.py's
    NARROW, section 8's seed chart and maps), not a desktop drawing scaled down; SVG letters count at their
    on-screen size."""
    phone.emulate_media(color_scheme=scheme)
    smallest = phone.evaluate(SMALLEST_TEXT, "")
    assert len(smallest) >= 11 and {s['section'] for s in smallest} >= {'trained', 'text'}, smallest
    small = [s for s in smallest if s["size"] < 11]
    assert not small, "text under 11 px at 375 px:\n" + "\n".join(f"{s['section']}: {s['size']:.1f} px, {s['what']}"
                                                                    for s in small)
