"""The text model's lesson: its default prompt, the experiment the page runs on a reader's text, and the
measurements of the same experiments over many ids (typical, competition) that the trainer stores.

An id is a whole word of letters and digits (at least MIN_ID) that a later word repeats: exactly, or (a
near-duplicate the reader wrote) sharing its first MIN_ID or more characters and then going another way. The
later word is being written, so every experiment's prompt stops inside it (`start`: half of an exact repeat, the
shared start of a near-duplicate) and asks how the model goes on: the earlier copy's end, or another.

- near_duplicate_prompts(text, context): the prompt with one copy, with the earlier copy written twice
  (`k7q2xm k7q2xm`), and with it followed by a near-duplicate (`k7q2xm k7q3yn`); for a reader's own
  near-duplicate, the prompt as written, its two real ends compared.
- typical(model): the same experiment's medians over TYPICAL_COUNT seeded random ids in DEFAULT_FORM (one draw,
  the default id, is not a typical one).
- competition(model): section 10's rule on this model: the id's median p with 0, 1, 2, 4, 8 lines of
  near-duplicates (or, the control, unrelated ids) between it and the reply.

read_steps() is mha.text.read one character at a time (mha.text.extend, the KV cache), a generator
that yields after each, so a page can draw between them; probability() reads a continuation's
probability off a Reading (the product over its characters), as mha.text.continuation_probability does.
"""

import random
import re
from typing import NamedTuple

import mha.text

# A spec line, a tool's result with an id in it, and a reply that repeats the id ({id}: where it goes)
DEFAULT_FORM = 'spec: answer with the id\ntool: {"id":"{id}","state":"sent","items":[3,1]}\nai: sent {id}'
DEFAULT_PROMPT = DEFAULT_FORM.replace("{id}", "k7q2xm")
MIN_ID = 3
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

    @property
    def needs(self):
        """Characters the exact repeat's prompt and the id's end take: the prompt, ' ' + a second copy, the end."""
        return self.prompt_length + 1 + len(self.text) + len(self.end)


class Trial(NamedTuple):
    """One prompt and what the model does after it."""

    prompt: str
    probabilities: dict  # continuation -> the probability that the model writes exactly it next
    copied: str          # the continuation its own guesses write, one character at a time (None: neither)


def find_id(text):
    """The id (Id) of the last word that repeats an earlier one, or None. Words are whole runs of letters and
    digits; a repeat is the same word, or one sharing MIN_ID or more leading characters before both go on
    differently, or (the text's last word, still being typed) the first MIN_ID or more characters of an earlier
    word: its prompt is the text as it is, and the earlier word's end is what it asks for. Its partner: an exact
    copy if there is one, else the longest shared start; the nearest on ties."""
    words = [(m.start(), m.group()) for m in re.finditer(WORD, text)]
    for k in range(len(words) - 1, 0, -1):
        last, word = words[k]
        typing = last + len(word) == len(text)
        best = None
        for first, earlier in reversed(words[:k]):
            shared = _shared(earlier, word)
            exact = earlier == word and len(word) >= MIN_ID
            diverge = MIN_ID <= shared < min(len(earlier), len(word))
            begun = typing and MIN_ID <= shared == len(word) < len(earlier)
            rank = (exact, shared)
            if (exact or diverge or begun) and (best is None or rank > best[0]):
                best = (rank, Id(word, first, last, max(1, len(word) // 2)) if exact
                        else Id(earlier, first, last, shared) if begun
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
    if found.needs > context:
        raise ValueError(f"With a second copy and the id's end the experiment needs {found.needs} "
                         f"characters, over the model's {context}: shorten the text before the id's last copy.")
    return [("one", prompt), ("exact", inserted[0]), ("near", inserted[1])]


class Typical(NamedTuple):
    """typical()'s medians, over `count` random ids: p of the earlier copy's end after one copy, after an exact
    repeat, after a near-duplicate and (the control) after an unrelated id of the same length; paired, how many ids
    each insertion lowers that p for; how often the near-duplicate's greedy guesses write each end, and how often the
    one-copy prompt's write the whole end (writes_alone: free-running, not given the true characters)."""

    count: int
    one: float
    exact: float
    near: float
    writes_own: int
    writes_other: int
    unrelated: float
    exact_lowers: int
    near_lowers: int
    unrelated_lowers: int
    writes_alone: int

    @property
    def writes_neither(self):
        """Ids for which the near-duplicate prompt's greedy guesses write neither end."""
        return self.count - self.writes_own - self.writes_other


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


def unrelated_word(word, draw):
    """A random word of SWAP's characters as long as word, not sharing its first MIN_ID (draw: a random.Random)."""
    while True:
        other = "".join(draw.choice(SWAP) for _ in word)
        if other[:MIN_ID] != word[:MIN_ID]:
            return other


def typical(model, ids=None, form=DEFAULT_FORM, reader=None):
    """The near-duplicate experiment on each id in form (typical_ids() by default), and its control (an unrelated
    word inserted where the near-duplicate goes): Typical, the medians and paired counts.
    reader(text) -> (probabilities, weights), as mha.text.measure takes it (default: mha.text.read)."""
    p = {"one": [], "exact": [], "near": [], "unrelated": []}
    own = other = alone = 0
    draw = random.Random(TYPICAL_SEED + 1)
    for word in ids or typical_ids():
        text = form.replace("{id}", word)
        found = find_id(text)
        prompts = dict(near_duplicate_prompts(text, model.context))
        prompts["unrelated"] = prompts["near"].replace(f"{word} {found.near}", f"{word} {unrelated_word(word, draw)}", 1)
        for kind in ("exact", "unrelated"):
            p[kind].append(_teacher_forced(model, reader, prompts[kind], found.end)[0])
        p_one, writes_one = _teacher_forced(model, reader, prompts["one"], found.end)
        p["one"].append(p_one)
        alone += bool(writes_one)
        p_end, writes_end = _teacher_forced(model, reader, prompts["near"], found.end)
        writes_near = _teacher_forced(model, reader, prompts["near"], found.near_end)[1]
        p["near"].append(p_end)
        own += writes_end
        other += writes_near and not writes_end
    lowers = {kind: sum(bool(after < before) for before, after in zip(p["one"], p[kind]))
              for kind in ("exact", "near", "unrelated")}
    return Typical(len(p["one"]), _median(p["one"]), _median(p["exact"]), _median(p["near"]), own, other,
                   _median(p["unrelated"]), lowers["exact"], lowers["near"], lowers["unrelated"], alone)


class Hang(NamedTuple):
    """hanging_head's answer: the id found (find_id's), the head, p of the id's end with every head on and with it
    off, the share of p kept, what the greedy guesses write in the end's place either way, and how many of the end's
    characters they still get right with it off."""

    found: Id
    head: tuple
    on: float
    off: float
    kept: float
    written_on: str
    written_off: str
    characters_kept: int


def hanging_head(model, text=DEFAULT_PROMPT):
    """Of the heads whose measured role is induction (model.measurements["roles"]), the one whose switch lowers p
    of text's id end most (the first, on a tie), after the prompt find_id cuts: how much one prompt hangs on it."""
    found = _id_or_refuse(text)
    prompt = text[:found.prompt_length]
    inducers = [(layer, head) for layer, head, role in model.measurements["roles"] if role == "induction"]
    p_off = {name: mha.text.continuation_probability(model, prompt, found.end, off=[name]).probability
             for name in inducers}
    head = min(inducers, key=p_off.get)
    on = mha.text.continuation_probability(model, prompt, found.end).probability
    written = [mha.text.greedy(model, prompt, len(found.end), off).text for off in ([], [head])]
    return Hang(found, head, on, p_off[head], p_off[head] / on, *written,
                sum(a == b for a, b in zip(written[1], found.end)))


def later_twin_wins(found):
    """Over typical() results (one a seed): True if every one finishes the later of two near-duplicates (its own
    near-duplicate's end) on more ids than the earlier, False if every one on fewer, None if they differ."""
    if all(t.writes_other > t.writes_own for t in found):
        return True
    if all(t.writes_other < t.writes_own for t in found):
        return False
    return None


def copy_share(stages):
    """The share of all training sequences that were copy drills, from a recipe's stages ({"steps", "mix"}, the
    copies' share first): each stage's steps times that share, over all the steps."""
    return sum(stage["steps"] * stage["mix"][0] for stage in stages) / sum(stage["steps"] for stage in stages)


def _teacher_forced(model, reader, prompt, continuation):
    """(P(continuation | prompt), whether the model's own guesses write it), from one reading of prompt and all of
    the continuation but its last character (as trial_steps finds them, without the steps)."""
    text = mha.text.parse_text(model, prompt + continuation[:-1])
    rows = reader(text)[0] if reader else mha.text.read(model, text).probabilities
    p, writes = 1.0, True
    for i, c in enumerate(continuation):
        row = rows[len(prompt) - 1 + i]
        p *= row[model.vocab.index(c)]
        writes = writes and max(range(len(row)), key=row.__getitem__) == model.vocab.index(c)
    return p, writes


COMPETITION_CHUNKS = (0, 1, 2, 4, 8)  # how many chunks competition() puts between the id and its reply
COMPETITION_LINE = "log: {0}\n"  # one chunk
COMPETITION_FORM = "tool: {0}\n{1}ai: {2}"  # the id, the chunks, the reply's first MIN_ID characters


class Competition(NamedTuple):
    """competition()'s medians over `count` ids: p of the id's end with each count of chunks between, for
    near-duplicate chunks (the id's start, other ends) and for unrelated ids (the control)."""

    count: int
    chunks: tuple
    near: list
    unrelated: list


def competition_prompt(word, others):
    """(prompt, the id's end): the id in a tool line, one COMPETITION_LINE per word of `others`, and a reply that
    has written the id's first MIN_ID characters."""
    lines = "".join(COMPETITION_LINE.format(other) for other in others)
    return COMPETITION_FORM.format(word, lines, word[:MIN_ID]), word[MIN_ID:]


def competitors(word, count, kind, draw):
    """`count` words to put between: near-duplicates (the id's first MIN_ID characters, then an end shifted
    k + 1 places along SWAP for the k-th) or unrelated ids drawn from `draw` (a random.Random)."""
    if kind == "near":
        end = word[MIN_ID:]
        return [word[:MIN_ID] + "".join(SWAP[(SWAP.index(c) + k + 1) % len(SWAP)] for c in end) for k in range(count)]
    return ["".join(draw.choice(SWAP) for _ in word) for _ in range(count)]


def competition(model, reader=None, ids=None, chunks=COMPETITION_CHUNKS):
    """Section 10's rule on the text model: over ids (typical_ids() by default), the median probability that the
    reply writes the id's end, with 0, 1, 2, ... near-duplicate chunks between the id and the reply, and the same
    with unrelated ids instead. reader(text) -> (probabilities, weights), as mha.text.measure takes it (default:
    mha.text.read)."""
    medians = {"near": [], "unrelated": []}
    words = ids or typical_ids()
    for kind in medians:
        for count in chunks:
            draw = random.Random(count)
            values = []
            for word in words:
                prompt, end = competition_prompt(word, competitors(word, count, kind, draw))
                values.append(_teacher_forced(model, reader, prompt, end)[0])
            medians[kind].append(_median(values))
    return Competition(len(words), tuple(chunks), medians["near"], medians["unrelated"])


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


def right_guesses(reading, start=0):
    """[guess i == the text's character i + 1, for each position i from start on]: the last position has no next
    character in the text, so it is never right. len = len(reading.text) - start."""
    text = reading.text
    return [i + 1 < len(text) and reading.guess_at(i)[0] == text[i + 1] for i in range(start, len(text))]


def top_key(weights, row):
    """The key position that query `row` weighs most (the first, on a tie), among the keys it can see (0..row)."""
    return max(range(row + 1), key=weights[row].__getitem__)


def chance(model):
    """A uniform guess's chance of any one character: 1 / the vocabulary's size."""
    return 1 / len(model.vocab)
