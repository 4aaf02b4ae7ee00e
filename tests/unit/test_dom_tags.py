"""dom.py (build time) and boot.js (run time) allow the same tags: a tree that pre-renders also draws live."""

import re
from pathlib import Path

from page import dom

BOOT = Path(__file__).resolve().parents[2] / "site" / "boot.js"


def test_boot_js_and_dom_py_allow_the_same_tags():
    block = re.search(r"const TAGS = new Set\(\[(.*?)\]\);", BOOT.read_text(), re.S).group(1)
    assert set(re.findall(r'"([a-z0-9]+)"', block)) == set(dom.ALLOWED_TAGS)
