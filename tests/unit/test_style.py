"""site/style.css: every weight bucket w0..w9 is styled, and its number is readable (WCAG AA, 4.5:1)."""

import re
from pathlib import Path

import pytest

from page.dom import weight_class

CSS = (Path(__file__).resolve().parents[2] / "site" / "style.css").read_text()
INK = re.search(r"--ink:\s*(#[0-9a-f]{6})", CSS).group(1)


def luminance(colour):
    """WCAG relative luminance of #rrggbb."""
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    light, dark = sorted([luminance(a), luminance(b)], reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("bucket", [f"w{i}" for i in range(10)])
def test_weight_bucket_text_is_readable(bucket):
    rule = re.search(rf"\.{bucket} \{{ background: (#[0-9a-f]{{6}}); color: ([^;]+);", CSS)
    assert rule, f".{bucket} is not styled"
    background, text = rule.group(1), rule.group(2).replace("var(--ink)", INK)
    assert contrast(background, text) >= 4.5, (bucket, background, text)


def test_buckets_split_the_unit_interval():
    assert [weight_class(w) for w in (0.0, 0.0999, 0.1, 0.5177, 0.9, 1.0)] == ["w0", "w0", "w1", "w5", "w9", "w9"]
