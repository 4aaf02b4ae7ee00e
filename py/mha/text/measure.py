"""What the shipped model does, measured on its held-out sets (the trainer calls measure() once).

- copy: of a repeated id, the characters from the second on, guessed right at the id's second
  occurrence (teacher-forced), on prompt forms it trained on and forms it never saw.
- head scores on held-out repeated random strings: previous-token (section 8's definition) and
  induction, attention from a character of the second copy to the character after its first occurrence.
- bits per character on held-out docstrings, beside a bigram model counted on the training docstrings.
"""

import math

from ..training.probes import previous_token_score
from ..training.roles import INDUCTION_MIN, PREVIOUS_TOKEN_MIN
from .reading import read


def copy_accuracy(model, prompts, off=()):
    """(right, total) over prompts, each {"text", "second", "length"}: the id of `length` characters at
    text[second:]; its characters 1..length-1 count, each right when the guess after the one before is it."""
    right = total = 0
    for prompt in prompts:
        guess, text, second = read(model, prompt["text"], off).guess, prompt["text"], prompt["second"]
        for k in range(1, prompt["length"]):
            right += guess[second + k - 1] == text[second + k]
            total += 1
    return right, total


def induction_positions(repeat):
    """(p, answer) pairs of a repeat {"text", "first", "second", "length"}: each character p of the second
    copy but its last, and where the character after its first occurrence sits."""
    gap = repeat["second"] - repeat["first"]
    return [(p, p - gap + 1) for p in range(repeat["second"], repeat["second"] + repeat["length"] - 1)]


def head_scores(model, repeats, off=()):
    """Per head, layer by layer: {"layer", "head", "previous_token", "induction"}, means over the repeats."""
    sums = {name: [0.0, 0.0] for name in model.names}
    for repeat in repeats:
        weights = read(model, repeat["text"], off).weights
        pairs = induction_positions(repeat)
        for layer, head in model.names:
            rows = weights[layer][head]
            sums[layer, head][0] += previous_token_score(rows)
            sums[layer, head][1] += sum(rows[p][answer] for p, answer in pairs) / len(pairs)
    return [{"layer": layer, "head": head, "previous_token": prev / len(repeats), "induction": ind / len(repeats)}
            for (layer, head), (prev, ind) in sums.items()]


def name_heads(scores):
    """Section 8's rule (mha.training.roles' thresholds), looking for the previous-token heads in layers
    before the induction head: {"induction_head", "previous_token_heads", "pair"}.

    induction_head: the top induction score's [layer, head]; previous_token_heads: every head of an
    earlier layer scoring at least PREVIOUS_TOKEN_MIN; pair: both thresholds met.
    """
    top = max(scores, key=lambda row: row["induction"])
    earlier = [[row["layer"], row["head"]] for row in scores
               if row["layer"] < top["layer"] and row["previous_token"] >= PREVIOUS_TOKEN_MIN]
    return {"induction_head": [top["layer"], top["head"]], "previous_token_heads": earlier,
            "pair": bool(earlier) and top["induction"] >= INDUCTION_MIN}


def bits_per_character(model, text):
    """Mean -log2 P(text[i] | what came before, at most context characters), over i = 1..len(text)-1.

    The text is read in pieces of context + 1 characters overlapping by one: every character but
    the first is predicted once, from the start of its piece.
    """
    bits = count = 0
    for start in range(0, len(text) - 1, model.context):
        piece = text[start:start + model.context + 1]
        rows = read(model, piece[:-1]).probabilities
        for i, char in enumerate(piece[1:]):
            bits -= math.log2(rows[i][model.vocab.index(char)])
            count += 1
    return bits / count


def bigram_bits(vocab, counts, text):
    """Mean -log2 P(text[i] | text[i-1]) over i = 1..len(text)-1, add-one smoothed:
    P(b | a) = (counts[a][b] + 1) / (sum over c of counts[a][c] + len(vocab))."""
    bits = 0.0
    for a, b in zip(text, text[1:]):
        row = counts[vocab.index(a)]
        bits -= math.log2((row[vocab.index(b)] + 1) / (sum(row) + len(vocab)))
    return bits / (len(text) - 1)


def measure(model):
    """Every figure issue 27 asks for, from the model's own held-out sets (slow pure Python: run once)."""
    sets = model.evaluation
    trained, unseen, repeats = sets["trained_forms"], sets["unseen_forms"], sets["repeats"]
    scores = head_scores(model, repeats)
    names = name_heads(scores)
    previous = [tuple(pair) for pair in names["previous_token_heads"]]

    def copy(off):
        (right_t, total_t), (right_u, total_u) = copy_accuracy(model, trained, off), copy_accuracy(model, unseen, off)
        return {"off": [list(pair) for pair in off], "trained": right_t / total_t, "unseen": right_u / total_u,
                "trained_characters": total_t, "unseen_characters": total_u}

    first = min((pair[0] for pair in previous), default=model.layers)  # the earliest previous-token head's layer
    with_previous_off = head_scores(model, repeats, previous) if previous else []
    return {
        "chance": 1 / len(model.vocab),
        "copy": copy(()),
        "copy_off": [copy((name,)) for name in model.names] + ([copy(tuple(previous))] if len(previous) > 1 else []),
        "scores": scores,
        "heads": names,
        "composition": [{"layer": row["layer"], "head": row["head"], "off": [list(p) for p in previous],
                         "induction": row["induction"]} for row in with_previous_off
                        if row["layer"] > first],
        "bits_per_character": {"model": bits_per_character(model, sets["docstrings"]),
                               "bigram": bigram_bits(model.vocab, sets["bigram_counts"], sets["docstrings"]),
                               "characters": len(sets["docstrings"]) - 1, "bigram_smoothing": "add-one"},
    }
