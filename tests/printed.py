"""How the lesson must print a probability, written out here from its rule, never taken from the page's formatters.

Shared by tests/unit/test_text_page.py (the trees) and tests/browser/test_page_text.py (the page in Chromium).
"""

import math


def two(p):
    """A probability as the page must print it: 2 decimals, or 2 significant digits under 0.01 (as decimals), or
    'under 0.001' below that (0.0000017 beside 0.82 would be read by counting its zeros)."""
    if p < 0.001:
        return "under 0.001"
    return f"{p:.2f}" if p >= 0.01 else f"{p:.{1 - math.floor(math.log10(p))}f}"


def pair(a, b):
    """Two probabilities side by side as the page must print them: each under 0.01 to 2 significant digits; else 2
    decimals, or as many more as it takes for two different numbers not to print alike."""
    if min(a, b) < 0.01:
        return two(a), two(b)
    digits = 2
    while f"{a:.{digits}f}" == f"{b:.{digits}f}" and a != b and digits < 9:
        digits += 1
    return f"{a:.{digits}f}", f"{b:.{digits}f}"
