"""site/index.html as a document: the nine sections, the cell contract, unique ids and names. No browser."""

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

import build
from figures import questions

SITE = Path(__file__).resolve().parents[2] / "site"
PAGE = build.page_source()  # index.html with its sections, before rendering
MAIN = PAGE[PAGE.index("<main>"):PAGE.index("</main>")]
CELLS = ("two_heads", "one_head", "training")
# The worked example and the exercise (derived by hand in tests/conftest.py), as the prose prints them: section 3
# to 2 decimals, as its tables first do, and so does a question's explanation, which the page shows on Check
# (figures/questions.py): token 1's row in head 0 [0.5141, 0.4859], the exercise's flat head 1 and the wide head's
# [0.5125, 0.4875] and [0.5100, 0.4900] after it.
NUMBERS = ["[0.52, 0.48]", "[0.67, 0.33]", "[0.33, 0.67]", "[0.63, 0.37]", "[0.39, 0.61]",
           "[0.51, 0.49]", "[0.50, 0.50]", "[0.9, 0.1, 0.0, 1.0]"]


class Elements(HTMLParser):
    """Every start tag as (tag, attributes)."""

    def __init__(self, text):
        super().__init__()
        self.found = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


@pytest.mark.parametrize("name", CELLS)
def test_each_cell_is_placed_once_exactly_as_the_cells_expect(name):
    kebab = name.replace("_", "-")
    mark = f'<div class="cell" data-cell="{name}" id="cell-{kebab}"><!--render:cell-{kebab}--></div>'
    assert PAGE.count(mark) == 1
    assert PAGE.count(f'data-cell="{name}"') == 1


def test_ten_numbered_sections_in_order_then_the_sources_with_the_lesson_numbers_and_the_privacy_sentence():
    assert len(re.findall(r"<section ", MAIN)) == len(re.findall(r"<h2 ", MAIN)) == 11
    assert re.findall(r"<h2 [^>]*>(\d+)\. ", MAIN) == [str(n) for n in range(1, 11)]
    assert MAIN.rstrip().endswith("</section>") and '<h2 id="references-title">Sources</h2>' in MAIN
    explained = " ".join(answer["explanation"] for answer in questions.answers().values())
    for number in NUMBERS:
        assert number in MAIN or number in explained, number
    assert "nothing you type or run is" in MAIN.lower()


def test_no_inline_script_style_or_handler_anywhere():
    assert not re.search(r"style=|\son[a-z]+=", PAGE, re.IGNORECASE)
    scripts = re.findall(r"<script[^>]*>(.*?)</script>", PAGE, re.S)
    assert scripts and not any(body.strip() for body in scripts)  # every script is a src=, none inline


def test_ids_are_unique_in_the_built_page(built_site):
    elements = Elements((built_site / "index.html").read_text()).found
    ids = [attrs["id"] for _, attrs in elements if "id" in attrs]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    names = [attrs["aria-label"] for tag, attrs in elements if tag in ("input", "table") and "aria-label" in attrs]
    assert len(names) == len(set(names))
    assert "token 1 slot 3" in names and "head 1 weights" in names and "one head weights" in names


def test_every_field_has_a_name(built_site):
    """A field is named by aria-label or by a <label> around it (or for= its id)."""
    text = (built_site / "index.html").read_text()
    labelled = set(re.findall(r'<label[^>]*for="([^"]+)"', text))
    wrapped = {m for block in re.findall(r"<label[^>]*>(.*?)</label>", text, re.S)
               for m in re.findall(r'id="([^"]+)"', block)}
    for tag, attrs in Elements(text).found:
        if tag in ("input", "select", "textarea") and attrs.get("type") != "hidden":
            assert "aria-label" in attrs or attrs.get("id") in labelled | wrapped, (tag, attrs)
