"""The text model's lesson: its default prompt, and the two experiments the page runs on a reader's text.

An id is a whole word of letters and digits (at least MIN_ID) that a later word repeats: exactly, or (a
near-duplicate the reader wrote) sharing its first MIN_ID or more characters and then going another way. The
later word is being written, so every experiment's prompt stops inside it (`start`: half of an exact repeat, the
shared start of a near-duplicate) and asks how the model goes on: the earlier copy's end, or another.

- near_duplicate_prompts(text, context): the prompt with one copy, with the earlier copy written twice
  (`k7q2xm k7q2xm`), and with it followed by a near-duplicate (`k7q2xm k7q3yn`); for a reader's own
  near-duplicate, the prompt as written, its two real ends compared.
- moved_back_prompts(text, context): the prompt as written, against the same prompt with the earlier copy's line
  up to it (`tool: k7q2xm`, label and all) moved to the start of a full context (padded with FILLER).
- typical(model): the same experiments' medians over TYPICAL_COUNT seeded random ids in DEFAULT_FORM (one draw,
  the default id, is not a typical one).

read_steps() is mha.text.read one character at a time (mha.text.extend, the KV cache), a generator
that yields after each, so a page can draw between them; probability() reads a continuation's
probability off a Reading (the product over its characters), as mha.text.continuation_probability does.
"""

import random
import re
from typing import NamedTuple

import mha.text

DEFAULT_FORM = "tool: {0}\nai: {0}"  # a tool result's id, which the reply must repeat
DEFAULT_PROMPT = DEFAULT_FORM.format("k7q2xm")
MIN_ID = 3
FILLER = " and the log says it ran fine "  # what pads a moved id's text to the full context
SWAP = "0123456789abcdefghijklmnopqrstuvwxyz"  # a near-duplicate's end: each character the next one here
WORD = f"[{SWAP}]+"  # an id is a whole word of these (parsed text is lower case): a re pattern
TYPICAL_COUNT, TYPICAL_SEED, TYPICAL_LENGTH = 60, 0, 6  # typical(): how many random ids, their seed, their length


class Id(NamedTuple):
    """An id in a text: its characters, where its earlier copy and the later word start, how much of the later
    word the prompt holds, and the later word when the reader wrote a near-duplicate (None: an exact repeat)."""

    text: str
    first: int
    last: int
    start: int  # the prompt ends after this many of the later word's characters
    written: str = None  # the reader's own near-duplicate (the later word), or None

    @property
    def end(self):
        """The earlier copy's end: the id after its start."""
        return self.text[self.start:]

    @property
    def near(self):
        """A near-duplicate: the reader's own, or the same start with another end (near_end)."""
        return self.written or self.text[:self.start] + near_end(self.end)

    @property
    def near_end(self):
        return self.near[self.start:]

    @property
    def prompt_length(self):
        return self.last + self.start


class Trial(NamedTuple):
    """One prompt and what the model does after it."""

    prompt: str
    probabilities: dict  # continuation -> the probability that the model writes exactly it next
    copied: str          # the continuation its own guesses write, one character at a time (None: neither)


def find_id(text):
    """The id (Id) of the last word that repeats an earlier one, or None. Words are whole runs of letters and
    digits; a repeat is the same word, or one sharing MIN_ID or more leading characters before both go on
    differently. Its partner: an exact copy if there is one, else the longest shared start; the nearest on ties."""
    words = [(m.start(), m.group()) for m in re.finditer(WORD, text)]
    for k in range(len(words) - 1, 0, -1):
        last, word = words[k]
        best = None
        for first, earlier in reversed(words[:k]):
            shared = _shared(earlier, word)
            exact = earlier == word and len(word) >= MIN_ID
            diverge = MIN_ID <= shared < min(len(earlier), len(word))
            rank = (exact, shared)
            if (exact or diverge) and (best is None or rank > best[0]):
                best = (rank, Id(word, first, last, max(1, len(word) // 2)) if exact
                        else Id(earlier, first, last, shared, word))
        if best is not None:
            return best[1]
    return None


def _shared(a, b):
    """How many leading characters a and b share."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def near_end(end):
    """Another end of the same length: each character the next in SWAP (characters outside SWAP kept)."""
    return "".join(SWAP[(SWAP.index(c) + 1) % len(SWAP)] if c in SWAP else c for c in end)


def near_duplicate_prompts(text, context):
    """[(kind, prompt)]: for an exact repeat, ('one', the prompt as written), ('exact', with ' ' + the earlier copy
    inserted after it) and ('near', with ' ' + a near-duplicate inserted there); for a reader's own near-duplicate,
    [('yours', the prompt as written)]. ValueError when the text has no id, or a prompt and its end do not fit."""
    found = _id_or_refuse(text)
    prompt = text[:found.prompt_length]
    if found.written:
        return [("yours", prompt)]
    after = found.first + len(found.text)
    inserted = [text[:after] + " " + copy + text[after:found.prompt_length] for copy in (found.text, found.near)]
    needs = len(inserted[0]) + len(found.end)
    if needs > context:
        raise ValueError(f"With a second copy and the id's end the experiment needs {needs} "
                         f"characters, over the model's {context}: shorten the text before the id's last copy.")
    return [("one", prompt), ("exact", inserted[0]), ("near", inserted[1])]


def moved_back_prompts(text, context):
    """(as written, moved, distance): the prompt; the prompt with the earlier copy's line up to the copy's end
    (its label kept with it) moved to the start of a full context, FILLER (as much as fits) after it, then the rest
    of the text; and how far back the earlier copy then is from the later word.
    ValueError when there is no id, or the copy is already as far back as the context allows."""
    found = _id_or_refuse(text)
    prompt = text[:found.prompt_length]
    line = text.rfind("\n", 0, found.first) + 1
    after = found.first + len(found.text)
    unit, rest = text[line:after], text[:line] + text[after:found.prompt_length]
    room = context - len(prompt) - len(found.end)
    if line == 0 and room <= 0:
        raise ValueError(f"The id is already at the start of a full {context}-character context: it cannot move "
                         f"further back.")
    filler = (FILLER * (room // len(FILLER) + 1))[:room]
    moved = unit + filler + rest
    return prompt, moved, len(moved) - found.start - (found.first - line)


class Typical(NamedTuple):
    """typical()'s medians, over `count` random ids: p of the earlier copy's end after one copy, after an exact
    repeat and after a near-duplicate, and how often the near-duplicate's greedy guesses write each end."""

    count: int
    one: float
    exact: float
    near: float
    writes_own: int
    writes_other: int


def typical_ids(count=TYPICAL_COUNT, seed=TYPICAL_SEED, length=TYPICAL_LENGTH):
    """The fixed random ids typical() measures: `count` words of SWAP's characters, random.Random(seed)."""
    draw = random.Random(seed)
    return ["".join(draw.choice(SWAP) for _ in range(length)) for _ in range(count)]


def _median(values):
    """The middle of values, sorted (the mean of the middle two for an even count). Not statistics.median:
    build.py gives the page's Python every standard module mha imports, and the page never needs this one."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def typical(model, ids=None, form=DEFAULT_FORM):
    """The near-duplicate experiment on each id in form (typical_ids() by default): Typical, the medians."""
    one, exact, near, own, other = [], [], [], 0, 0
    for word in ids or typical_ids():
        text = form.format(word)
        found = find_id(text)
        prompts = dict(near_duplicate_prompts(text, model.context))
        one.append(mha.text.continuation_probability(model, prompts["one"], found.end).probability)
        exact.append(mha.text.continuation_probability(model, prompts["exact"], found.end).probability)
        trial = run_steps(trial_steps(model, prompts["near"], [found.end, found.near_end]))
        near.append(trial.probabilities[found.end])
        own += trial.copied == found.end
        other += trial.copied == found.near_end
    return Typical(len(one), _median(one), _median(exact), _median(near), own, other)


def _id_or_refuse(text):
    found = find_id(text)
    if found is None:
        raise ValueError(f"No id to test: write a word of {MIN_ID} or more letters and digits twice, as in the default "
                         f"text (or a second time with another end).")
    return found


def run_steps(steps):
    """A generator's return value, run to its end."""
    try:
        while True:
            next(steps)
    except StopIteration as done:
        return done.value


def read_steps(model, text, off=()):
    """mha.text.read(model, text, off) one character at a time: yields after each; returns the Reading."""
    text = mha.text.parse_text(model, text)
    reading = mha.text.read(model, text[0], off)
    yield
    for c in text[1:]:
        reading = mha.text.extend(model, reading, c, off)
        yield
    return reading


def probability(model, reading, prompt_length, continuation):
    """P(continuation | the reading's first prompt_length characters): the product, over its characters, of the
    reading's probability of each given all before it (mha.text.continuation_probability's number, in steps)."""
    p = 1.0
    for i, c in enumerate(continuation):
        p *= reading.probabilities[prompt_length - 1 + i][model.vocab.index(c)]
    return p


def trial_steps(model, prompt, continuations, off=()):
    """A Trial: each continuation's probability after prompt, and which one the model's guesses write.

    A generator (yields after each character read): the prompt is read once, then each continuation
    extends that Reading (a Reading never changes, so each starts from the same cache)."""
    base = yield from read_steps(model, prompt, off)
    probabilities, copied = {}, None
    for continuation in continuations:
        reading = base
        for c in continuation[:-1]:
            reading = mha.text.extend(model, reading, c, off)
            yield
        probabilities[continuation] = probability(model, reading, len(prompt), continuation)
        guesses = reading.guess[len(prompt) - 1:len(prompt) - 1 + len(continuation)]
        if copied is None and "".join(guesses) == continuation:
            copied = continuation
    return Trial(prompt, probabilities, copied)


def right_guesses(reading):
    """[guess i == the text's character i + 1, for each position i]: the last position has no next character
    in the text, so it is never right. len = len(reading.text)."""
    text = reading.text
    return [i + 1 < len(text) and guess == text[i + 1] for i, guess in enumerate(reading.guess)]


def top_key(weights, row):
    """The key position that query `row` weighs most (the first, on a tie), among the keys it can see (0..row)."""
    return max(range(row + 1), key=lambda j: weights[row][j])


def chance(model):
    """A uniform guess's chance of any one character: 1 / the vocabulary's size."""
    return 1 / len(model.vocab)
