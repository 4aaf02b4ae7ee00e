"""The lesson's prose is in our own words: no run of seven words from the content brief.

The brief (shared/LESSON.md) is not in this repo; tests/data/brief_7grams.txt holds
fingerprints of its 7-word runs (scripts/brief_ngrams.py). Words are letters only, so
the worked numbers, which the page must print, do not count.
"""

import html
import re
import sys
from pathlib import Path

import build

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import brief_ngrams  # noqa: E402

BRIEF = set((ROOT / "tests" / "data" / "brief_7grams.txt").read_text().split())


def page_text():
    """The text a reader reads in <main>: tags, comments and entities resolved away."""
    page = build.page_source()
    main = page[page.index("<main>"):page.index("</main>")]
    main = re.sub(r"<!--.*?-->|<[^>]+>", " ", main, flags=re.S)
    return html.unescape(main)


def shared_runs(text):
    """The 7-word runs of text whose fingerprint is one of the brief's."""
    ws = brief_ngrams.words(text)
    runs = [" ".join(ws[i:i + brief_ngrams.RUN]) for i in range(len(ws) - brief_ngrams.RUN + 1)]
    return [run for run in runs if next(iter(brief_ngrams.fingerprints(run))) in BRIEF]


def test_the_fingerprints_catch_a_run_of_the_brief_and_pass_our_own():
    """A check that could not fail would prove nothing. The one quotation of the brief in this repo is
    here, on purpose: a heading the page used to carry, before its prose was rewritten."""
    assert len(BRIEF) > 500
    assert shared_runs("Softmax mass is shared: what this means for prompts")[0] == \
        "softmax mass is shared what this means"
    assert not shared_runs("one two three four five six seven eight")


def test_the_page_shares_no_seven_word_run_with_the_brief():
    runs = shared_runs(page_text())
    assert not runs, f"{len(runs)} runs of seven words come from the brief, e.g. {runs[:5]}"
