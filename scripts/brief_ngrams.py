"""Fingerprints of every 7-word run in the content brief, for tests/unit/test_prose.py.

    python3 scripts/brief_ngrams.py ../shared/LESSON.md > tests/data/brief_7grams.txt
    python3 scripts/brief_ngrams.py --numbers ../shared/LESSON.md > tests/data/brief_7grams_numbers.txt

The brief lives outside this repo; its runs are kept as hashes only, so the test can
prove the page shares no run of seven words with it without a copy of its text here.
Words are lower-case letters only; with --numbers, numbers (1, 0.5) are words too, so a
run such as "2 keys and values x layers x" is one (punctuation is never a word).
"""

import hashlib
import re
import sys

RUN = 7
LETTERS = re.compile(r"[a-z]+")
LETTERS_AND_NUMBERS = re.compile(r"[a-z]+|[0-9]+(?:\.[0-9]+)?")


def words(text, numbers=False):
    """The lower-case words of a text, in order: letters only, or numbers as words too."""
    return (LETTERS_AND_NUMBERS if numbers else LETTERS).findall(text.lower())


def fingerprints(text, run=RUN, numbers=False):
    """sha256 prefixes of every run of `run` consecutive words."""
    ws = words(text, numbers)
    return {hashlib.sha256(" ".join(ws[i:i + run]).encode()).hexdigest()[:16] for i in range(len(ws) - run + 1)}


if __name__ == "__main__":
    numbers = "--numbers" in sys.argv[1:]
    path = [arg for arg in sys.argv[1:] if arg != "--numbers"][0]
    sys.stdout.write("".join(f"{h}\n" for h in sorted(fingerprints(open(path).read(), numbers=numbers))))
