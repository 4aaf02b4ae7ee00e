"""The lesson's prose is in our own words: no run of seven words from the content brief.

The brief (shared/LESSON.md) is not in this repo; tests/data/brief_7grams*.txt hold
fingerprints of its 7-word runs (scripts/brief_ngrams.py): once with words of letters
only, once with numbers as words too. A shared run with numbers counts only if at least
PROSE_WORDS of its words are letters: the worked numbers (a row of a table, "token 1 0.9
0.1 1.0 0.0"), which the page must print, are the brief's too.
"""

import html
import json
import re
import sys
from pathlib import Path

import build
from prose_count import section_words, visible_words

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import brief_ngrams  # noqa: E402

BRIEF = set((ROOT / "tests" / "data" / "brief_7grams.txt").read_text().split())
BRIEF_NUMBERS = set((ROOT / "tests" / "data" / "brief_7grams_numbers.txt").read_text().split())
PROSE_WORDS = 3


def page_text(built_site):
    """The text a reader reads: <main> of the built page (the sections' prose, the pre-rendered figures and
    code cells, the numbers filled in), tags, comments and entities resolved away; then the answers a
    question shows on Check (answers.json)."""
    page = (built_site / "index.html").read_text()
    main = page[page.index("<main>"):page.index("</main>")]
    main = re.sub(r"<!--.*?-->|<[^>]+>", " ", main, flags=re.S)
    answers = json.loads((built_site / "answers.json").read_text())
    return "\n".join([html.unescape(main), *_strings(answers)])


def _strings(value):
    """Every string in a JSON value, in order."""
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [text for item in items for text in _strings(item)]


def shared_runs(text, numbers=False):
    """The 7-word runs of text whose fingerprint is one of the brief's (numbers as words too, if asked)."""
    ws = brief_ngrams.words(text, numbers)
    runs = [" ".join(ws[i:i + brief_ngrams.RUN]) for i in range(len(ws) - brief_ngrams.RUN + 1)]
    brief = BRIEF_NUMBERS if numbers else BRIEF
    return [run for run in runs if next(iter(brief_ngrams.fingerprints(run, numbers=numbers))) in brief]


def prose_runs(text):
    """Shared runs counting numbers, less the ones that are mostly numbers (fewer than PROSE_WORDS words of letters)."""
    return [run for run in shared_runs(text, numbers=True) if sum(w.isalpha() for w in run.split()) >= PROSE_WORDS]


def test_the_fingerprints_catch_a_run_of_the_brief_and_pass_our_own():
    """A check that could not fail would prove nothing. The one quotation of the brief in this repo is
    here, on purpose: a heading the page used to carry, before its prose was rewritten."""
    assert len(BRIEF) > 500
    assert shared_runs("Softmax mass is shared: what this means for prompts")[0] == \
        "softmax mass is shared what this means"
    assert not shared_runs("one two three four five six seven eight")


def test_the_page_shares_no_seven_word_run_with_the_brief(built_site):
    runs = shared_runs(page_text(built_site))
    assert not runs, f"{len(runs)} runs of seven words come from the brief, e.g. {runs[:5]}"


def test_runs_with_numbers_are_caught_and_rows_of_worked_numbers_pass():
    """A sentence of the brief (a second quotation, on purpose) that letters alone cannot see: six words of
    letters, but a run of seven once its numbers count. A row of the worked example's numbers is the
    brief's too, and must stay printable."""
    sentence = "Head 0 reads slots 0-1, head 1 reads slots 2-3."
    assert not shared_runs(sentence) and prose_runs(sentence)
    row = "token 0 1.0 0.0 0.0 1.0 token 1 0.9 0.1 1.0 0.0"  # the worked example, as its grid prints it
    assert shared_runs(row, numbers=True) and not prose_runs(row)


def test_the_page_shares_no_seven_word_run_with_the_brief_counting_numbers_too(built_site):
    runs = prose_runs(page_text(built_site))
    assert not runs, f"{len(runs)} runs of seven words (numbers counted) come from the brief, e.g. {runs[:5]}"


# --- the word budget (issues 23, 46) ---------------------------------------------------------

BUDGET = 3500


def lesson_words(built_site):
    """Every word a reader sees in the <section>s of the built page (prose_count.VisibleWords): the sentences
    rendered from the figures' state, their notes and the questions included; tables, <svg>, code, controls
    and their labels, <summary> and headings left out."""
    counts = section_words((built_site / "index.html").read_text())
    assert len(counts) >= 9, counts
    return sum(counts.values())


def test_the_word_counter_counts_what_the_reader_sees():
    """Ten words: two in the first <p> (<kbd> counts), one in the <li>, two in the panel's note, two in the
    hidden note (the reader sees it after a question), two around the <code>, one in the open <details>.
    Headings, tables, <svg>, labels, buttons, selects, code, <summary>, a code cell and comments are not."""
    fragment = ('<h2>Not counted</h2><p>One <kbd>two</kbd></p><ul><li>three</li></ul>'
                '<div class="figure-panel"><p class="note">four five</p><p hidden>six&nbsp;seven</p>'
                '<table><tr><td>no</td></tr></table><svg><text>no</text></svg><label>no <input> no</label>'
                '<button>no</button><select><option>no</option></select></div><p>eight <code>no</code> nine</p>'
                '<pre>no</pre><details><summary>no</summary><p>ten</p></details><h3>no</h3>'
                '<div class="cell"><p>no</p></div><!-- no -->')
    assert visible_words(fragment) == 10


def test_the_lesson_keeps_to_its_word_budget(built_site):
    """At most 3,500 words a reader sees (about 4,650 before issue 46), the sentences rendered from the
    figures' state included."""
    assert lesson_words(built_site) <= BUDGET


def test_the_readme_states_the_prose_count(built_site):
    """The README gives the page's count as it is and the budget the test above holds."""
    readme = (ROOT / "README.md").read_text()
    assert f"{lesson_words(built_site):,} words a reader sees" in readme and f"{BUDGET:,}" in readme
