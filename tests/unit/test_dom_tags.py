"""page/dom.py (build time) and boot.js (run time) allow the same tags and attributes: a tree that
pre-renders also draws live, and an SVG figure is made in the SVG namespace by both."""

import re
from pathlib import Path

from page import dom

BOOT = (Path(__file__).resolve().parents[2] / "site" / "boot.js").read_text()


def _strings(pattern):
    return set(re.findall(r'"([A-Za-z0-9]+)"', re.search(pattern, BOOT, re.S).group(1)))


def test_boot_js_and_dom_py_allow_the_same_tags():
    assert _strings(r"const TAGS = new Set\(\[(.*?)\]\);") - {"SVG_TAGS"} | _strings(r"const SVG_TAGS = \[(.*?)\];") \
        == set(dom.ALLOWED_TAGS)


def test_boot_js_and_dom_py_make_the_same_tags_svg():
    assert _strings(r"const SVG_TAGS = \[(.*?)\];") == set(dom.SVG_TAGS)


def test_boot_js_and_dom_py_allow_the_same_camel_case_attributes():
    assert _strings(r"const CASED_ATTRIBUTES = new Set\(\[(.*?)\]\);") == set(dom.CASED_ATTRIBUTES)


def test_an_svg_tree_prerenders_with_its_view_box_and_no_style():
    tree = ["svg", {"viewBox": "0 0 10 10", "aria-hidden": "true"}, ["line", {"x1": "0", "x2": "10", "class": "w5"}]]
    dom.check(tree)
    assert dom.to_html(tree) == '<svg viewBox="0 0 10 10" aria-hidden="true"><line x1="0" x2="10" class="w5"></line></svg>'
