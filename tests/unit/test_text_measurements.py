"""The shipped model's measurements, recomputed here in numpy from its held-out sets, and issue 27's targets.

The measurements were made once, by the trainer calling mha.text.measure (pure Python); here every
figure is worked again with text_reference.forward, from the definitions in the comments.
"""

import math

import numpy as np
import pytest

import mha.text
from text_reference import encode, forward, shipped

DATA = shipped()
SETS, SHIPPED = DATA["evaluation"], DATA["measurements"]
CONTEXT = DATA["config"]["context"]
NAMES = [(layer, head) for layer in range(DATA["config"]["layers"]) for head in range(DATA["config"]["heads"])]
PREVIOUS = [tuple(pair) for pair in SHIPPED["heads"]["previous_token_heads"]]


def copy_counts(prompts, off=()):
    """(right, total): at the id's second occurrence, characters 1..length-1, each guessed from the one before."""
    logits, _ = forward(DATA, encode(DATA, [p["text"] for p in prompts]), off)
    guess = logits.argmax(-1)
    right = total = 0
    for b, p in enumerate(prompts):
        for k in range(1, p["length"]):
            right += DATA["vocab"][guess[b, p["second"] + k - 1]] == p["text"][p["second"] + k]
            total += 1
    return right, total


def scores(off=()):
    """Per head: previous-token, mean of w[i][i-1] over i >= 1; induction, mean over the second copy's characters
    (but its last) of the weight on the character after the same one in the first copy; each averaged over repeats."""
    repeats = SETS["repeats"]
    _, weights = forward(DATA, encode(DATA, [r["text"] for r in repeats]), off)
    rows = []
    for layer, head in NAMES:
        w = weights[layer, head]
        previous = np.mean([np.mean([w[b, i, i - 1] for i in range(1, len(r["text"]))]) for b, r in enumerate(repeats)])
        induction = np.mean([np.mean([w[b, p, p - (r["second"] - r["first"]) + 1]
                                      for p in range(r["second"], r["second"] + r["length"] - 1)])
                             for b, r in enumerate(repeats)])
        rows.append({"layer": layer, "head": head, "previous_token": previous, "induction": induction})
    return rows


def test_every_evaluation_prompt_fits_the_context():
    """A prompt longer than the context would lose its first id, and every copy score would read near zero."""
    for name in ("trained_forms", "unseen_forms", "repeats"):
        assert SETS[name] and all(len(p["text"]) <= CONTEXT for p in SETS[name]), name
    for p in SETS["trained_forms"] + SETS["unseen_forms"]:
        first, second, n = p["first"], p["second"], p["length"]
        assert p["text"][first:first + n] == p["text"][second:second + n] and first + n <= second
        assert len(p["text"]) == second + n  # cut at the end of the second copy


def test_unseen_forms_never_reached_training():
    corpus = DATA["about"]["corpus"]
    assert len(corpus["unseen_forms"]) >= 4 and not set(corpus["unseen_forms"]) & set(corpus["trained_forms"])
    assert {p["text"][:5] for p in SETS["unseen_forms"]}.isdisjoint({p["text"][:5] for p in SETS["trained_forms"]})


@pytest.mark.parametrize("entry", [SHIPPED["copy"], *SHIPPED["copy_off"]], ids=lambda e: f"off {e['off']}")
def test_copy_accuracy_is_what_numpy_counts(entry):
    off = [tuple(p) for p in entry["off"]]
    for name in ("trained", "unseen"):
        right, total = copy_counts(SETS[f"{name}_forms"], off)
        assert total == entry[f"{name}_characters"]
        assert abs(entry[name] - right / total) <= 1 / total  # an exact tie could tip one argmax


def test_head_scores_and_composition_are_what_numpy_computes():
    for ours, theirs in zip(SHIPPED["scores"], scores()):
        assert (ours["layer"], ours["head"]) == (theirs["layer"], theirs["head"])
        assert ours["previous_token"] == pytest.approx(theirs["previous_token"], abs=1e-9)
        assert ours["induction"] == pytest.approx(theirs["induction"], abs=1e-9)
    without = {(r["layer"], r["head"]): r["induction"] for r in scores(PREVIOUS)}
    for row in SHIPPED["composition"]:
        assert [tuple(p) for p in row["off"]] == PREVIOUS
        assert row["induction"] == pytest.approx(without[row["layer"], row["head"]], abs=1e-9)


def test_bits_per_character_beside_an_add_one_bigram():
    text, vocab = SETS["docstrings"], DATA["vocab"]
    bits = []
    for start in range(0, len(text) - 1, CONTEXT):  # pieces of context + 1, overlapping by one character
        piece = text[start:start + CONTEXT + 1]
        logits, _ = forward(DATA, encode(DATA, [piece[:-1]]))
        logp = logits[0] - logits[0].max(-1, keepdims=True)
        logp -= np.log(np.exp(logp).sum(-1, keepdims=True))
        bits += [-logp[i, vocab.index(c)] / math.log(2) for i, c in enumerate(piece[1:])]
    counts = np.array(SETS["bigram_counts"], dtype=float)
    ids = [vocab.index(c) for c in text]
    bigram = -np.mean(np.log2((counts[ids[:-1], ids[1:]] + 1) / (counts[ids[:-1]].sum(1) + len(vocab))))
    measured = SHIPPED["bits_per_character"]
    assert len(bits) == measured["characters"] == len(text) - 1
    assert measured["model"] == pytest.approx(np.mean(bits), abs=1e-9)
    assert measured["bigram"] == pytest.approx(bigram, abs=1e-9)
    assert SHIPPED["chance"] == 1 / len(vocab)


# --- issue 27's targets, part 3 ---------------------------------------------------------------------

def test_it_copies_ids_on_trained_and_unseen_forms():
    assert SHIPPED["copy"]["trained"] >= 0.80
    assert SHIPPED["copy"]["unseen"] >= 0.60


def test_a_previous_token_head_feeds_an_induction_head_in_a_later_layer():
    """Section 8's rule, looking for the previous-token heads only in layers before the induction head."""
    named = SHIPPED["heads"]
    assert named["pair"] and PREVIOUS
    assert all(layer < named["induction_head"][0] for layer, _ in PREVIOUS)
    assert named == mha.text.name_heads(SHIPPED["scores"])


def test_switching_the_previous_token_heads_off_at_least_halves_copying_and_induction():
    off = next(e for e in SHIPPED["copy_off"] if [tuple(p) for p in e["off"]] == PREVIOUS)
    assert off["trained"] <= SHIPPED["copy"]["trained"] / 2
    assert off["unseen"] <= SHIPPED["copy"]["unseen"] / 2
    induction = {(r["layer"], r["head"]): r["induction"] for r in SHIPPED["scores"]}
    head = tuple(SHIPPED["heads"]["induction_head"])
    after = next(r["induction"] for r in SHIPPED["composition"] if (r["layer"], r["head"]) == head)
    assert after <= induction[head] / 2
