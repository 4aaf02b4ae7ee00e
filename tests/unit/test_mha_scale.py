"""The score scale: attention_weights(scale=), multi_head_attention(temperature=), random_vectors.

Test data first, then the tests. Every expected number is worked by hand in a
docstring: a two-key softmax row is [s(x), 1 - s(x)], s(x) = 1 / (1 + e^-x), x
the gap between the two scores. numpy is the reference for random_vectors' spread.
"""

import math

import numpy as np
import pytest

import mha
from mha.projections import random_vectors

# --- test data ---------------------------------------------------------------

TOKENS = [[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 1.0, 0.0]]  # the worked example (section 3)

BAD_SCALES = [  # (value, words of the sentence)
    (0, "above 0"), (-1.5, "above 0"), (math.nan, "finite"), (math.inf, "finite"),
    ("2", "must be a number"), (True, "must be a number"),
]  # (None is attention_weights' default scale, 1/sqrt(key width), and a refused temperature)


def s(x):
    """The larger weight of a two-key row whose scores differ by x."""
    return 1 / (1 + math.exp(-x))


# --- attention_weights(scale=) ------------------------------------------------

def test_the_default_scale_is_one_over_root_key_width():
    """q = [0, 1], keys [0, 1] and [1, 0]: dots 1 and 0, times 1/sqrt(2): gap 0.70711 -> 0.66976."""
    row = mha.attention_weights([[0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]])[0]
    assert row == pytest.approx([0.669762, 0.330238], abs=1e-6)
    assert row == pytest.approx([s(1 / math.sqrt(2)), 1 - s(1 / math.sqrt(2))], abs=1e-15)


def test_scale_one_leaves_the_dot_products_as_they_are():
    """The same row, dots 1 and 0 unscaled: gap 1 -> 1 / (1 + e^-1) = 0.73106."""
    row = mha.attention_weights([[0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]], scale=1.0)[0]
    assert row == pytest.approx([0.731059, 0.268941], abs=1e-6)


def test_attention_passes_its_scale_on_and_mixes_the_values():
    """scale 3: gap 3 -> 1 / (1 + e^-3) = 0.95257; values [10] and [0] -> output 9.5257."""
    outputs, weights = mha.attention([[0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]], [[10.0], [0.0]], scale=3)
    assert weights[0] == pytest.approx([0.952574, 0.047426], abs=1e-6)
    assert outputs[0] == pytest.approx([9.52574], abs=1e-5)


@pytest.mark.parametrize("value, words", BAD_SCALES)
def test_a_scale_that_is_not_a_positive_number_is_refused_with_a_sentence(value, words):
    with pytest.raises(ValueError, match=f"scale {words}|scale must be {words}"):
        mha.attention_weights([[1.0]], [[1.0]], scale=value)


# --- multi_head_attention(temperature=) -----------------------------------------

def test_temperature_one_is_the_plain_recipe_to_the_bit():
    plain = mha.multi_head_attention(TOKENS, 2)
    assert mha.multi_head_attention(TOKENS, 2, temperature=1.0).weights == plain.weights
    assert mha.single_head_attention(TOKENS, temperature=1)[1] == mha.single_head_attention(TOKENS)[1]


def test_a_low_temperature_sharpens_head_1_of_the_worked_example():
    """Head 1 compares [0, 1] with [1, 0]: gap 1/sqrt(2) = 0.70711 at T = 1 (0.6698).

    T = 0.5 doubles the gap to 1.41421: 1 / (1 + e^-1.41421) = 1 / 1.24312 = 0.80443.
    T = 0.1 makes it 7.07107: 1 / (1 + 0.00085) = 0.99915, a row that looks sharp.
    """
    half = mha.multi_head_attention(TOKENS, 2, temperature=0.5).weights[1]
    assert half[0] == pytest.approx([0.80443, 0.19557], abs=1e-5)
    tenth = mha.multi_head_attention(TOKENS, 2, temperature=0.1).weights[1]
    assert tenth[0] == pytest.approx([0.99915, 0.00085], abs=1e-5)
    assert tenth[1] == pytest.approx([0.00085, 0.99915], abs=1e-5)


def test_a_high_temperature_flattens_every_table():
    """T = 2 halves head 1's gap to 0.35355: 1 / (1 + e^-0.35355) = 1 / 1.70219 = 0.58748.

    The wide head, row 0: 2 vs 0.9 over sqrt(4) * 2 = 4, gap 1.1 / 4 = 0.275:
    1 / (1 + e^-0.275) = 1 / 1.75957 = 0.56832.
    """
    assert mha.multi_head_attention(TOKENS, 2, temperature=2).weights[1][0] == pytest.approx([0.58748, 0.41252],
                                                                                             abs=1e-5)
    assert mha.single_head_attention(TOKENS, temperature=2)[1][0] == pytest.approx([0.56832, 0.43168], abs=1e-5)


def test_temperature_reaches_cross_attention_and_the_causal_mask_stays_exact():
    """Causal, T = 0.1: row 0 still sees only itself (1, 0); row 1 of head 1 is the sharp 0.00085 / 0.99915.

    Cross-attention whose context is the tokens themselves is self-attention, at any temperature.
    """
    rows = mha.multi_head_attention(TOKENS, 2, causal=True, temperature=0.1).weights[1]
    assert rows[0] == [1.0, 0.0]
    assert rows[1] == pytest.approx([0.00085, 0.99915], abs=1e-5)
    cross = mha.multi_head_attention(TOKENS, 2, context=TOKENS, temperature=0.1).weights  # context = the tokens
    assert cross == mha.multi_head_attention(TOKENS, 2, temperature=0.1).weights


@pytest.mark.parametrize("value, words", [*BAD_SCALES, (None, "must be a number")])
def test_a_temperature_that_is_not_a_positive_number_is_refused_with_a_sentence(value, words):
    with pytest.raises(ValueError, match=f"temperature {words}|temperature must be {words}"):
        mha.multi_head_attention(TOKENS, 2, temperature=value)


# --- random_vectors: the spread the scale undoes ---------------------------------------

def test_random_vectors_are_seeded_and_shaped():
    first = random_vectors(3, 5, seed=4)
    assert len(first) == 3 and all(len(v) == 5 for v in first)
    assert random_vectors(3, 5, seed=4) == first != random_vectors(3, 5, seed=5)
    with pytest.raises(ValueError, match="width must be at least 1"):
        random_vectors(3, 0)


def test_random_vectors_have_unit_variance_and_their_dots_spread_like_root_width():
    """Uniform on [-sqrt(3), sqrt(3)]: variance (2 sqrt(3))^2 / 12 = 1. A dot of two such
    vectors of width d sums d products of variance 1, so its spread (std) is sqrt(d)."""
    entries = np.array(random_vectors(400, 64, seed=1))
    assert entries.mean() == pytest.approx(0.0, abs=0.02)
    assert entries.var() == pytest.approx(1.0, abs=0.02)
    for width in (4, 64):
        v = np.array(random_vectors(2000, width, seed=2))
        dots = (v[:1000] * v[1000:]).sum(axis=1)
        assert dots.std() == pytest.approx(math.sqrt(width), rel=0.1)
