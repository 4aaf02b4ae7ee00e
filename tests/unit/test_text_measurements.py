"""The shipped models' measurements, recomputed here in numpy from their held-out sets, and issue 43's targets.

The measurements were made once per seed, by the trainer calling mha.text.measure and
mha.text_lesson.competition (with numpy's forward pass as their reader); here every figure is worked again
with text_reference.forward, from the definitions in the comments, written without mha's probes.
"""

import math
import random

import numpy as np
import pytest

import mha.text
import mha.text_lesson
from text_reference import SEEDS, encode, forward, shipped

MODELS = {seed: shipped(seed) for seed in SEEDS}
OPENERS = {'"': '"', "(": ")", "[": "]", "{": "}"}


def copy_counts(data, prompts, off=()):
    """(right, total): at the id's second occurrence, characters 1..length-1, each guessed from the one before."""
    logits, _ = forward(data, encode(data, [p["text"] for p in prompts]), off)
    guess = logits.argmax(-1)
    right = total = 0
    for b, p in enumerate(prompts):
        for k in range(1, p["length"]):
            right += data["vocab"][guess[b, p["second"] + k - 1]] == p["text"][p["second"] + k]
            total += 1
    return right, total


def pieces(data, text):
    """Pieces of context + 1 characters, each starting where the last ended (overlapping by one)."""
    context = data["config"]["context"]
    return [text[s:s + context + 1] for s in range(0, len(text) - 1, context)]


def keys_for(text, i):
    """{probe: keys} for row i of text, written from the probes' definitions (mha.text.measure's docstring)."""
    found = {"previous_token": [i - 1] if i else None,
             "same_character": [j for j in range(i) if text[j] == text[i]] or None}
    start = i
    while start and text[start - 1].isalnum():
        start -= 1
    found["word_start"] = [start] if text[i].isalnum() and i - start >= 2 else None
    stack = []  # the innermost open quote or bracket before i, as the text closes them
    for j in range(i):
        if stack and OPENERS[text[stack[-1]]] == text[j]:
            stack.pop()
        elif text[j] in OPENERS:
            stack.append(j)
    found["bracket"] = [stack[-1]] if stack and stack[-1] < i - 1 else None
    return found


def scores(data):
    """Per head, each probe's mean weight on its keys over the rows it applies to (docstrings; induction on the
    repeats: the key after the same character in the first copy)."""
    sets, config = data["evaluation"], data["config"]
    names = [(layer, head) for layer in range(config["layers"]) for head in range(config["heads"])]
    sums = {name: {} for name in names}
    counts = {}

    def add(probe, weights, b, row, keys):
        for name in names:
            sums[name][probe] = sums[name].get(probe, 0.0) + weights[name][b, row, keys].sum()
        counts[probe] = counts.get(probe, 0) + 1

    texts = [piece[:-1] for piece in pieces(data, sets["docstrings"])]
    _, weights = forward(data, encode(data, texts))
    for b, text in enumerate(texts):
        for i in range(len(text)):
            for probe, keys in keys_for(text, i).items():
                if keys:
                    add(probe, weights, b, i, keys)
    repeats = sets["repeats"]
    _, weights = forward(data, encode(data, [r["text"] for r in repeats]))
    for b, r in enumerate(repeats):
        gap = r["second"] - r["first"]
        for p in range(r["second"], r["second"] + r["length"] - 1):
            add("induction", weights, b, p, [p - gap + 1])
    return {name: {probe: sums[name][probe] / counts[probe] for probe in counts} for name in names}


@pytest.fixture(scope="module", params=SEEDS, ids=lambda s: f"seed {s}")
def data(request):
    return MODELS[request.param]


def test_every_evaluation_prompt_fits_the_context_with_its_copies_far_apart(data):
    sets, context = data["evaluation"], data["config"]["context"]
    for name in ("trained_forms", "unseen_forms", "repeats"):
        assert sets[name] and all(len(p["text"]) <= context for p in sets[name]), name
    for p in sets["trained_forms"] + sets["unseen_forms"]:
        first, second, n = p["first"], p["second"], p["length"]
        assert p["text"][first:first + n] == p["text"][second:second + n] and second - first >= 64
        assert len(p["text"]) == second + n  # cut at the end of the second copy


def test_unseen_forms_and_held_out_docstrings_never_reached_training(data):
    corpus = data["about"]["corpus"]
    assert len(corpus["unseen_forms"]) >= 4 and not set(corpus["unseen_forms"]) & set(corpus["trained_forms"])
    assert {p["text"][:5] for p in data["evaluation"]["unseen_forms"]}.isdisjoint(
        {p["text"][:5] for p in data["evaluation"]["trained_forms"]})


def test_copy_accuracy_with_each_head_off_is_what_numpy_counts(data):
    for entry in data["measurements"]["tasks"]:
        off = [tuple(p) for p in entry["off"]]
        for name in ("trained", "unseen"):
            right, total = copy_counts(data, data["evaluation"][f"{name}_forms"], off)
            assert total == entry[f"{name}_characters"]
            assert abs(entry[name] - right / total) <= 1 / total  # an exact tie could tip one argmax


def test_each_head_s_probe_scores_are_what_numpy_computes(data):
    theirs = scores(data)
    for ours in data["measurements"]["scores"]:
        for probe in mha.text.PROBES:
            assert ours[probe] == pytest.approx(theirs[ours["layer"], ours["head"]][probe], abs=1e-6), probe


def test_a_role_is_of_the_probes_with_0_1_of_the_row_the_one_most_above_even_weights_by_4_times(data):
    even = data["measurements"]["even"]
    for (layer, head, role), row in zip(data["measurements"]["roles"], data["measurements"]["scores"]):
        lifts = {p: row[p] / even[p] for p in mha.text.PROBES if row[p] >= 0.1}
        best = max(lifts, key=lifts.get) if lifts else None
        assert (layer, head) == (row["layer"], row["head"])
        assert role == (best if best and lifts[best] >= 4 else None)


def test_even_weights_score_what_counting_keys_gives(data):
    """Even weights put 1 / (row + 1) on each key: a probe's even score is the mean of len(keys) / (row + 1)."""
    texts = [piece[:-1] for piece in pieces(data, data["evaluation"]["docstrings"])]
    totals = {}
    for text in texts:
        for i in range(len(text)):
            for probe, keys in keys_for(text, i).items():
                if keys:
                    totals.setdefault(probe, []).append(len(keys) / (i + 1))
    for probe, values in totals.items():
        assert data["measurements"]["even"][probe] == pytest.approx(np.mean(values), abs=1e-9), probe


def test_closing_probability_and_bits_per_character_beside_an_add_one_bigram(data):
    text, vocab = data["evaluation"]["docstrings"], data["vocab"]
    bits, closes = [], []
    for piece in pieces(data, text):
        logits, _ = forward(data, encode(data, [piece[:-1]]))
        logp = logits[0] - logits[0].max(-1, keepdims=True)
        logp -= np.log(np.exp(logp).sum(-1, keepdims=True))
        bits += [-logp[i, vocab.index(c)] / math.log(2) for i, c in enumerate(piece[1:])]
        for i in range(1, len(piece)):  # where piece[i] closes the innermost opener, opened before i - 1
            opener = keys_for(piece, i)["bracket"]
            if opener and OPENERS[piece[opener[0]]] == piece[i]:
                closes.append(math.exp(logp[i - 1, vocab.index(piece[i])]))
    counts = np.array(data["evaluation"]["bigram_counts"], dtype=float)
    ids = [vocab.index(c) for c in text]
    bigram = -np.mean(np.log2((counts[ids[:-1], ids[1:]] + 1) / (counts[ids[:-1]].sum(1) + len(vocab))))
    measured = data["measurements"]["bits_per_character"]
    assert len(bits) == measured["characters"] == len(text) - 1
    assert measured["model"] == pytest.approx(np.mean(bits), abs=1e-6)
    assert measured["bigram"] == pytest.approx(bigram, abs=1e-9)
    everything = data["measurements"]["tasks"][0]
    assert everything["closes"] == len(closes) and everything["close"] == pytest.approx(np.mean(closes), abs=1e-6)


def test_the_competition_medians_are_what_numpy_computes(data):
    measured = data["measurements"]["competition"]
    ids = mha.text_lesson.typical_ids()
    assert measured["count"] == len(ids) and tuple(measured["chunks"]) == mha.text_lesson.COMPETITION_CHUNKS
    for kind in ("near", "unrelated"):
        for count, median in zip(measured["chunks"], measured[kind]):
            draw, texts, ends = random.Random(count), [], []
            for word in ids:
                others = ([word[:3] + "".join(mha.text_lesson.SWAP[(mha.text_lesson.SWAP.index(c) + k + 1) % 36]
                                              for c in word[3:]) for k in range(count)] if kind == "near" else
                          ["".join(draw.choice(mha.text_lesson.SWAP) for _ in word) for _ in range(count)])
                texts.append(f"tool: {word}\n" + "".join(f"log: {o}\n" for o in others) + f"ai: {word[:3]}")
                ends.append(word[3:])
            logits, _ = forward(data, encode(data, [t + e[:-1] for t, e in zip(texts, ends)]))
            probs = np.exp(logits - logits.max(-1, keepdims=True))
            probs /= probs.sum(-1, keepdims=True)
            values = [np.prod([probs[b, len(t) - 1 + i, data["vocab"].index(c)] for i, c in enumerate(e)])
                      for b, (t, e) in enumerate(zip(texts, ends))]
            assert median == pytest.approx(np.median(values), rel=1e-5), (kind, count)


def test_the_typical_medians_are_mha_text_lesson_typical_on_numpy_s_forward_pass(data):
    """The trainer ran typical() with its own numpy reader; here it runs with text_reference's, written apart."""
    def reader(text, off=()):
        logits, _ = forward(data, encode(data, [text]))
        probs = np.exp(logits[0] - logits[0].max(-1, keepdims=True))
        return probs / probs.sum(-1, keepdims=True), None
    got = mha.text_lesson.typical(mha.text.from_data(data), reader=reader)._asdict()
    measured = data["measurements"]["typical"]
    counts = ("count", "writes_own", "writes_other", "writes_alone", "exact_lowers", "near_lowers", "unrelated_lowers")
    assert {k: got[k] for k in counts} == {k: measured[k] for k in counts}
    for key in ("one", "exact", "near", "unrelated"):
        assert measured[key] == pytest.approx(got[key], rel=1e-5), key


# --- issue 43's targets ---------------------------------------------------------------------------

def test_the_model_reads_128_characters_with_4_heads_in_each_of_2_layers(data):
    assert data["config"]["context"] >= 128 and data["config"]["heads"] >= 4 and data["config"]["layers"] >= 2


def test_it_copies_ids_64_or_more_characters_back_on_unseen_forms(data):
    assert data["measurements"]["tasks"][0]["unseen"] >= 0.60


def test_switching_its_previous_token_heads_off_at_least_halves_copying(data):
    m = data["measurements"]
    previous = m["previous_token_heads"]
    assert previous
    off = next(row for row in m["tasks"] if sorted(map(tuple, row["off"])) == sorted(map(tuple, previous)))
    assert off["unseen"] <= m["tasks"][0]["unseen"] / 2


def test_bits_per_character_are_0_3_below_the_bigram_s(data):
    bits = data["measurements"]["bits_per_character"]
    assert bits["model"] <= bits["bigram"] - 0.3


def test_its_roles_include_previous_token_induction_and_another_kind(data):
    roles = {role for _, _, role in data["measurements"]["roles"]}
    assert {"previous_token", "induction"} <= roles and roles - {"previous_token", "induction", None}


def test_the_dissociation_is_what_its_tasks_say(data):
    m = data["measurements"]
    assert m["dissociation"] == mha.text.dissociation(m["tasks"])
    if m["dissociation"]:
        copy_costs, close_costs = m["dissociation"]["copy_costs"], m["dissociation"]["close_costs"]
        assert copy_costs[0] >= 0.5 > 0.1 > copy_costs[1] and close_costs[1] >= 0.5 > 0.1 > close_costs[0]


def test_a_cost_is_the_share_lost_and_a_dissociation_needs_half_one_way_and_under_a_tenth_the_other():
    """Hand-built tasks, every head on: copying 0.8, closing 0.2. Head 0.0 off: 0.2 and 0.19 (costs 0.75, 0.05);
    0.1 off: 0.78 and 0.05 (0.025, 0.75); 1.0 off: 0.3 and 0.12 (0.625, 0.4: too costly to closing); 1.1 off: 0.8 and
    0.25 (closing gains: -0.25). So 0.0 and 0.1 are the pair, and without 0.1 there is none."""
    def row(off, unseen, close):
        return {"off": off, "unseen": unseen, "close": close}
    tasks = [row([], 0.8, 0.2), row([[0, 0]], 0.2, 0.19), row([[0, 1]], 0.78, 0.05), row([[1, 0]], 0.3, 0.12),
             row([[1, 1]], 0.8, 0.25)]
    assert mha.text.cost(tasks, [(0, 0)], "unseen") == pytest.approx(0.75)
    assert mha.text.cost(tasks, [[1, 1]], "close") == pytest.approx(-0.25)
    assert (mha.text.HALF, mha.text.LITTLE) == (0.5, 0.1)  # the page's words: "half or more", "under a tenth"
    found = mha.text.dissociation(tasks)
    assert (found["copy_head"], found["close_head"]) == ([0, 0], [0, 1])
    assert found["copy_costs"] == pytest.approx([0.75, 0.05]) and found["close_costs"] == pytest.approx([0.025, 0.75])
    assert mha.text.dissociation([t for t in tasks if t["off"] != [[0, 1]]]) is None


def test_across_the_seeds_some_role_sits_on_different_heads():
    """Heads are not labelled skills: the same recipe from another seed puts a role somewhere else."""
    holders = {}
    for seed, data in MODELS.items():
        for layer, head, role in data["measurements"]["roles"]:
            if role:
                holders.setdefault(role, {}).setdefault(seed, set()).add((layer, head))
    assert any(len({frozenset(h) for h in by_seed.values()}) > 1 for by_seed in holders.values()), holders


def test_the_three_seeds_share_one_recipe():
    recipes = [{k: v for k, v in data["about"]["corpus"].items()} for data in MODELS.values()]
    assert all(r == recipes[0] for r in recipes) and [d["about"]["seed"] for d in MODELS.values()] == list(SEEDS)
