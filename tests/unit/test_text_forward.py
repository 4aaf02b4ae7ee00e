"""mha.text's pure-Python forward pass against a numpy one written from the model's description
(text_reference.py), on the shipped weights and held-out text; and its KV cache against no cache."""

import math

import numpy as np
import pytest

import mha.text
import mha.text.reading
from text_reference import encode, forward, matrix, shipped

MODEL = mha.text.load()
DATA = shipped()
HELD_OUT = [DATA["evaluation"]["docstrings"][:32], DATA["evaluation"]["unseen_forms"][0]["text"],
            DATA["evaluation"]["repeats"][0]["text"], "q"]


# --- the forward pass ---------------------------------------------------------------------------

@pytest.mark.parametrize("off", [(), ((0, 1),), ((0, 0), (1, 1))], ids=["all on", "0.1 off", "0.0 and 1.1 off"])
@pytest.mark.parametrize("text", HELD_OUT, ids=["docstring", "unseen form", "repeat", "one character"])
def test_logits_and_weights_match_numpy_to_1e_5(text, off):
    reading = mha.text.read(MODEL, text, off)
    logits, weights = forward(DATA, encode(DATA, [text]), off)
    assert np.abs(np.array(reading.logits) - logits[0]).max() <= 1e-5
    for layer, head in MODEL.names:
        rows = reading.weights[layer][head]
        assert [len(row) for row in rows] == list(range(1, len(text) + 1))  # causal: row i covers 0..i
        square = np.array([list(row) + [0.0] * (len(text) - len(row)) for row in rows])
        assert np.abs(square - weights[layer, head][0]).max() <= 1e-5


@pytest.mark.parametrize("last", [True, False], ids=["the last position", "an earlier one"])
@pytest.mark.parametrize("off", [(), ((1, 2),)], ids=["all on", "1.2 off"])
def test_each_heads_write_is_its_direct_share_of_the_logits(off, last):
    """The heads' writes add up to the logits less what the input alone gives (x0 W_readout + bias: the readout is
    linear, and each layer adds its heads' outputs to the stream); each head's write, worked in numpy layer by layer
    (its weights on x W_v, through its rows of W_o and the readout, x the stream that layer reads); a head that is off
    writes zeros."""
    text = HELD_OUT[1]
    reading = mha.text.read(MODEL, text, off)
    position = len(text) - 1 if last else len(text) // 2  # the Reading keeps every position's writes
    writes = np.array(mha.text.writes(reading, position))  # layers x heads x vocab
    logits, weights = forward(DATA, encode(DATA, [text]), off)
    w, hw = DATA["weights"], MODEL.head_width
    d = MODEL.width
    angle = position / np.power(10000.0, np.arange(0, d, 2) / d)
    x0 = matrix(w["embed"])[[DATA["vocab"].index(c) for c in text]]
    x0_last = x0[position] + np.stack([np.sin(angle), np.cos(angle)], -1).reshape(d)
    direct = x0_last @ matrix(w["readout"]) + matrix(w["readout_bias"])[0]
    assert np.abs(writes.sum(axis=(0, 1)) - (logits[0, position] - direct)).max() <= 1e-5
    angles = np.arange(len(text))[:, None] / np.power(10000.0, np.arange(0, d, 2) / d)[None, :]
    x0 = x0 + np.stack([np.sin(angles), np.cos(angles)], -1).reshape(len(text), d)
    x = x0
    for layer, block in enumerate(w["layers"]):
        outputs = []
        for head in range(MODEL.heads):
            values = (x @ matrix(block["w_v"]))[:, head * hw:(head + 1) * hw]
            out = weights[layer, head][0] @ values  # every row's output: the next layer reads them all
            outputs.append(np.zeros_like(out) if (layer, head) in off else out)
            expected = out[position] @ matrix(block["w_o"])[head * hw:(head + 1) * hw] @ matrix(w["readout"])
            if (layer, head) not in off:
                assert np.abs(writes[layer][head] - expected).max() <= 1e-5, (layer, head)
        x = x + np.concatenate(outputs, axis=1) @ matrix(block["w_o"])
    for layer, head in off:
        assert not writes[layer][head].any()
    top = mha.text.top_writes(MODEL, reading, position)
    for layer, head in MODEL.names:
        if (layer, head) in off:
            assert top[layer, head] is None
        else:
            best = int(np.argmax(writes[layer][head]))
            assert top[layer, head] == (MODEL.vocab[best], pytest.approx(writes[layer][head][best], abs=1e-9))


def test_guess_and_probability_are_the_softmax_argmax_of_the_logits():
    reading = mha.text.read(MODEL, HELD_OUT[0])
    logits, _ = forward(DATA, encode(DATA, [HELD_OUT[0]]))
    probs = np.exp(logits[0] - logits[0].max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    assert reading.guess == [DATA["vocab"][i] for i in probs.argmax(-1)]
    assert np.allclose(reading.probability, probs.max(-1), atol=1e-9)
    top = reading.distribution(3, top=4)
    assert [c for c, _ in top] == [DATA["vocab"][i] for i in np.argsort(-probs[3], kind="stable")[:4]]
    assert top[0][1] == reading.probability[3] and all(a[1] >= b[1] for a, b in zip(top, top[1:]))


def test_a_head_switched_off_changes_only_what_comes_after_it():
    """Layer 1's heads read the stream layer 0 wrote: switching 1.0 off leaves every weight row of layer 0 and of
    1.0 itself as it was, and moves the logits."""
    text = HELD_OUT[1]
    on, off = mha.text.read(MODEL, text), mha.text.read(MODEL, text, [(1, 0)])
    assert on.weights[0] == off.weights[0] and on.weights[1] == off.weights[1]
    assert on.logits != off.logits
    moved = mha.text.read(MODEL, text, [(0, 0)])
    assert moved.weights[0] == on.weights[0] and moved.weights[1] != on.weights[1]


# --- the KV cache -------------------------------------------------------------------------------

def assert_same(a, b, tolerance=1e-12):
    """The same text read two ways: the same logits, and every head's weights and writes (what the captions read
    after each key) row for row."""
    assert a.text == b.text and a.off == b.off
    assert max(abs(x - y) for ra, rb in zip(a.logits, b.logits) for x, y in zip(ra, rb)) <= tolerance
    for field in ("weights", "writes"):
        for la, lb in zip(getattr(a, field), getattr(b, field)):
            for ha, hb in zip(la, lb):
                assert [len(r) for r in ha] == [len(r) for r in hb]
                assert max(abs(x - y) for ra, rb in zip(ha, hb) for x, y in zip(ra, rb)) <= tolerance


@pytest.mark.parametrize("off", [(), ((0, 1),)], ids=["all on", "0.1 off"])
def test_extending_one_character_at_a_time_gives_the_uncached_reading(off):
    text = HELD_OUT[1]
    reading = mha.text.read(MODEL, text[0], off)
    for char in text[1:]:
        reading = mha.text.extend(MODEL, reading, char, off)
    assert_same(reading, mha.text.read(MODEL, text, off))
    assert_same(mha.text.extend(MODEL, mha.text.read(MODEL, text[:9], off), text[9:], off),
                mha.text.read(MODEL, text, off))


def test_extending_with_other_heads_off_reads_the_whole_text_again():
    reading = mha.text.extend(MODEL, mha.text.read(MODEL, "get ab"), "c9", off=[(0, 0)])
    assert_same(reading, mha.text.read(MODEL, "get abc9", [(0, 0)]))


def test_the_cache_projects_and_attends_from_the_new_rows_only(monkeypatch):
    """A character typed at the end: every matmul gets one row: q, k, v per layer but layer 0 (its are rows of
    model.first_projections), w_o per layer but the last (the logits read that layer's heads through their writes),
    and each head's write (its output times its rows of w_o times the readout; the embed's and the position's readouts
    are rows of model.first_readout). Every head attends from one query row to all the keys so far: n + 1 of them,
    not an (n + 1)^2 square."""
    rows, queries = [], []
    real_matmul, real_weights = mha.text.reading.matmul_columns, mha.text.reading.attention_weights

    def counting_matmul(vectors, w):
        rows.append(len(vectors))
        return real_matmul(vectors, w)

    def counting_weights(q, k, mask):
        queries.append((len(q), len(k)))
        return real_weights(q, k, mask)

    earlier = mha.text.read(MODEL, "get ab12cd\nok ab12c")
    monkeypatch.setattr(mha.text.reading, "matmul_columns", counting_matmul)
    monkeypatch.setattr(mha.text.reading, "attention_weights", counting_weights)
    later = mha.text.extend(MODEL, earlier, "d")
    assert rows == [1] * (3 * (MODEL.layers - 1) + (MODEL.layers - 1) + MODEL.layers * MODEL.heads)
    assert queries == [(1, 20)] * (MODEL.layers * MODEL.heads)
    monkeypatch.undo()
    assert_same(later, mha.text.read(MODEL, "get ab12cd\nok ab12cd"))


def test_a_reading_cannot_be_changed():
    reading = mha.text.read(MODEL, "abc")
    with pytest.raises(AttributeError):
        reading.text = "xyz"
    assert isinstance(reading.logits, tuple) and isinstance(reading.weights[0][0][0], tuple)
    assert math.isclose(sum(reading.weights[1][1][2]), 1.0)


def test_guess_at_is_guess_and_probability_at_one_position():
    reading = mha.text.read(MODEL, "get ab12cd\nok ab12c")
    assert [reading.guess_at(i) for i in range(len(reading.text))] == list(zip(reading.guess, reading.probability))
