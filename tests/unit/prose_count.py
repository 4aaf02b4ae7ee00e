"""The page's word count, shared by the tests that hold the page and section 8 to their budgets: visible_words,
every word a reader sees in a <section> (issue 46; issue 23's narrower <p>/<li> count hid about 1,450 of them).
"""

import html.parser
import re

VOID = {"br", "col", "hr", "img", "input", "wbr", "meta", "link", "area", "source", "track", "embed", "param"}


class VisibleWords(html.parser.HTMLParser):
    """What the reader sees (issue 46's count): every word of text (split on white space) in a section of the
    built page, the sentences the figures generate, their notes and the questions' prompts included, and an element
    left hidden until a question is answered too (the reader sees it then). Left out, with everything inside them:
    tables, <svg>, code (<code>, <pre>, a code cell: class "cell"), form controls and what names them (<textarea>,
    <select>, <option>, <button>, <label>), <summary>, headings (<h2>, <h3>), and <script> and <style>. Entities
    count as the characters they stand for; comments (the build's marks) do not count."""

    SKIP_TAGS = {"table", "svg", "code", "pre", "textarea", "select", "option", "button", "label", "summary",
                 "h2", "h3", "script", "style"}
    SKIP_CLASSES = {"cell"}

    def __init__(self):
        super().__init__()
        self.stack, self.words = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        skip = tag in self.SKIP_TAGS or bool(set((dict(attrs).get("class") or "").split()) & self.SKIP_CLASSES)
        self.stack.append((tag, skip))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        if not any(skip for _, skip in self.stack):
            self.words += len(data.split())


def section_ids(page):
    """The ids of the page's sections, in order."""
    return re.findall(r'<section id="([^"]+)"', page)


def section_html(page, section_id):
    start = page.index(f'<section id="{section_id}"')
    return page[start:page.index("</section>", start)]


def visible_words(fragment):
    counter = VisibleWords()
    counter.feed(fragment)
    return counter.words


def section_words(page):
    """{section id: visible_words of it}, in the page's order."""
    return {section_id: visible_words(section_html(page, section_id)) for section_id in section_ids(page)}


if __name__ == "__main__":  # python3 tests/unit/prose_count.py dist/index.html: each section's count, and the total
    import sys

    counts = section_words(open(sys.argv[1]).read())
    for section_id, words in counts.items():
        print(f"{section_id:16} {words:5}")
    print(f"{'total':16} {sum(counts.values()):5}")
