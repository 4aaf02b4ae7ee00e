"""The page's two experiments on a reader's text: how likely a continuation is, and what the model writes."""

from typing import NamedTuple

from .model import parse_text
from .reading import extend, read


class Continuation(NamedTuple):
    """probability: the product of per_character, each (character, its probability given all before it)."""

    text: str
    probability: float
    per_character: list


class Greedy(NamedTuple):
    """text: the characters the model picked, one at a time; probabilities: each pick's probability."""

    text: str
    probabilities: list


def continuation_probability(model, prompt, continuation, off=()):
    """P(continuation | prompt), teacher-forced: prod over k of P(continuation[k] | prompt + continuation[:k]).

    Both through the KV cache: the prompt is read once, then the continuation extends it.
    """
    prompt = parse_text(model, prompt)
    continuation = parse_text(model, continuation)
    parse_text(model, prompt + continuation)  # the two together must fit the context
    reading = extend(model, read(model, prompt, off), continuation[:-1], off) if len(continuation) > 1 \
        else read(model, prompt, off)
    per_character, probability = [], 1.0
    for k, char in enumerate(continuation):
        p = reading.probabilities[len(prompt) - 1 + k][model.vocab.index(char)]
        per_character.append((char, p))
        probability *= p
    return Continuation(continuation, probability, per_character)


def greedy(model, prompt, count, off=()):
    """The next `count` characters the model picks (each its likeliest guess, fed back in), with their probabilities."""
    prompt = parse_text(model, prompt)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"count must be a whole number of at least 1, got {count!r}")
    if len(prompt) + count - 1 > model.context:
        raise ValueError(f"{len(prompt)} characters and {count - 1} more to read is longer than the model's "
                         f"context of {model.context}")
    reading, picked, probabilities = read(model, prompt, off), "", []
    for k in range(count):
        char, p = reading.guess[-1], reading.probability[-1]
        picked += char
        probabilities.append(p)
        if k < count - 1:
            reading = extend(model, reading, char, off)
    return Greedy(picked, probabilities)
