"""Fingerprints of every 7-word run in the content brief, for tests/unit/test_prose.py.

    python3 scripts/brief_ngrams.py ../shared/LESSON.md > tests/data/brief_7grams.txt

The brief lives outside this repo; its runs are kept as hashes only, so the test can
prove the page shares no run of seven words with it without a copy of its text here.
Words are lower-case letters only: numbers and punctuation are not words.
"""

import hashlib
import re
import sys

RUN = 7


def words(text):
    """The lower-case alphabetic words of a text, in order."""
    return re.findall(r"[a-z]+", text.lower())


def fingerprints(text, run=RUN):
    """sha256 prefixes of every run of `run` consecutive words."""
    ws = words(text)
    return {hashlib.sha256(" ".join(ws[i:i + run]).encode()).hexdigest()[:16] for i in range(len(ws) - run + 1)}


if __name__ == "__main__":
    sys.stdout.write("".join(f"{h}\n" for h in sorted(fingerprints(open(sys.argv[1]).read()))))
