"""Section 9's expected guesses, from outside the page: the command line, and how the page draws two characters.

Shared by test_page_text.py (Chromium) and test_page_firefox.py (Firefox).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHOWN = {"\n": "\u21b5", " ": "\u2423"}  # the lesson draws a newline as a return arrow, a space as an open box


def cli(text, off=(), seed=0):
    """What `python -m mha.text TEXT --json --seed N [--off L.H ...]` prints, parsed."""
    flags = [arg for layer, head in off for arg in ("--off", f"{layer}.{head}")] + ["--seed", str(seed)]
    done = subprocess.run([sys.executable, "-m", "mha.text", text, "--json", *flags], cwd=ROOT, check=True,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "py")})
    return json.loads(done.stdout)


def shown(text):
    """text as the page prints it: its newlines and spaces visible."""
    return "".join(SHOWN.get(c, c) for c in text)
