"""The text model's lesson: its default prompt, and the two experiments the page runs on a reader's text.

An id is the longest run of at least MIN_ID letters and digits that the text holds twice (the copies apart);
its last copy is being written, so every experiment's prompt stops after the first half of it
(`start`), and asks how the model goes on: the id's own end, or another.

- near_duplicate_prompts(text, context): the earlier copy written twice, exactly (`k7q2xm k7q2xm`), against the
  earlier copy followed by a near-duplicate with the same start and another end (`k7q2xm k7q3yn`).
- moved_back_prompts(text, context): the prompt as written, against the same prompt with the earlier copy moved to
  the start of a full context (padded with FILLER), as far back as the model reads.

read_steps() is mha.text.read one character at a time (mha.text.extend, the KV cache), a generator
that yields after each, so a page can draw between them; probability() reads a continuation's
probability off a Reading (the product over its characters), as mha.text.continuation_probability does.
"""

from typing import NamedTuple

import mha.text

DEFAULT_PROMPT = "tool: k7q2xm\nai: k7q2xm"  # a tool result's id, which the reply must repeat
MIN_ID = 3
FILLER = " and the log says it ran fine "  # what pads a moved id's text to the full context
SWAP = "0123456789abcdefghijklmnopqrstuvwxyz"  # a near-duplicate's end: each character the next one here


class Id(NamedTuple):
    """An id in a text: its characters, where its first and last copies start, how much of it the prompt holds."""

    text: str
    first: int
    last: int
    start: int  # the prompt ends after this many of the last copy's characters

    @property
    def end(self):
        """The characters the prompt asks for: the id after its start."""
        return self.text[self.start:]

    @property
    def near(self):
        """A near-duplicate: the same start, another end (near_end)."""
        return self.text[:self.start] + near_end(self.end)

    @property
    def prompt_length(self):
        return self.last + self.start


class Trial(NamedTuple):
    """One prompt and what the model does after it."""

    prompt: str
    probabilities: dict  # continuation -> the probability that the model writes exactly it next
    copied: str          # the continuation its own guesses write, one character at a time (None: neither)


def find_id(text):
    """The longest run of MIN_ID or more letters and digits written twice, not overlapping (Id), or None.

    Among runs of the same length the one whose last copy comes last wins: it is the one being written."""
    for length in range(len(text) // 2, MIN_ID - 1, -1):
        best = None
        for last in range(len(text) - length, length - 1, -1):
            run = text[last:last + length]
            if not set(run) <= set(SWAP):
                continue
            first = text.find(run, 0, last)
            if first != -1 and first + length <= last:
                best = Id(run, first, last, max(1, length // 2))
                break
        if best is not None:
            return best
    return None


def near_end(end):
    """Another end of the same length: each character the next in SWAP (characters outside SWAP kept)."""
    return "".join(SWAP[(SWAP.index(c) + 1) % len(SWAP)] if c in SWAP else c for c in end)


def near_duplicate_prompts(text, context):
    """(exact, near, near's end): the prompt with the earlier copy written twice, and followed by a near-duplicate.

    Each is text up to the prompt with ' ' + copy inserted after the earlier copy. ValueError when the text has no
    id, or the longer prompt does not fit the context."""
    found = _id_or_refuse(text)
    other = found.near
    after = found.first + len(found.text)
    prompts = [text[:after] + " " + copy + text[after:found.prompt_length] for copy in (found.text, other)]
    if len(prompts[0]) + len(found.end) > context:
        raise ValueError(f"With a second copy and the id's end the experiment needs {len(prompts[0]) + len(found.end)} "
                         f"characters, over the model's {context}: shorten the text before the id's last copy.")
    return prompts[0], prompts[1], near_end(found.end)


def moved_back_prompts(text, context):
    """(as written, moved): the prompt, and the prompt with the earlier copy moved to the start of a full context.

    The moved prompt is the copy, then FILLER (as much as the context leaves room for), then the text around it.
    ValueError when there is no id, or it is already as far back as the context allows."""
    found = _id_or_refuse(text)
    prompt = text[:found.prompt_length]
    rest = text[:found.first] + text[found.first + len(found.text):found.prompt_length]
    room = context - len(prompt) - len(found.end)
    if found.first == 0 and room == 0:
        raise ValueError(f"The id is already at the start of a full {context}-character context: it cannot move "
                         f"further back.")
    filler = (FILLER * (room // len(FILLER) + 1))[:room]
    return prompt, found.text + filler + rest


def _id_or_refuse(text):
    found = find_id(text)
    if found is None:
        raise ValueError(f"No id to test: write a run of {MIN_ID} or more letters and digits twice, as in the default "
                         f"text.")
    return found


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
