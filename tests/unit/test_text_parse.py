"""What a reader types into the character model: lower-cased, or refused with a sentence that names the fault."""

import pytest

import mha.text

MODEL = mha.text.load()


def test_upper_case_is_read_as_lower_case():
    assert mha.text.parse_text(MODEL, 'GET Ab12\n{"ID": 7}') == 'get ab12\n{"id": 7}'
    assert mha.text.read(MODEL, "AbC").text == "abc"


def test_the_vocabulary_is_printable_ascii_without_upper_case_and_five_signs():
    printable = {chr(c) for c in range(32, 127)} | {"\n"}
    assert set(MODEL.vocab) == {c for c in printable if not c.isupper()} - set("\\^`|~")
    assert len(MODEL.vocab) == len(set(MODEL.vocab)) == 65
    assert set('{}[]":,._-;') <= set(MODEL.vocab)  # JSON's punctuation


# Each bad text, and the exact sentence the page shows beside the field. Positions count from 0.
BAD = [
    ("", "the text is empty: type at least one character"),
    ('{"price": "12 €"}', "'€' (position 14) is not in the model's 65 characters"),
    ("tab\there", "'\\t' (position 3) is not in the model's 65 characters"),
    ("a|b", "'|' (position 1) is not in the model's 65 characters"),
    ("İx", "'İ' (position 0) is not in the model's 65 characters"),  # lower-cases to two characters
    ("x" * 129, "129 characters is longer than the model's context of 128"),
    ("x" * 3000, "3,000 characters is longer than the model's context of 128"),  # thousands grouped, as printed
    (["a"], "the text must be a string, got list"),
]


@pytest.mark.parametrize("text, sentence", BAD, ids=["empty", "euro", "tab", "bar", "dotted I", "too long", "a paste", "list"])
def test_each_bad_text_is_refused_with_its_sentence(text, sentence):
    with pytest.raises(ValueError) as error:
        mha.text.parse_text(MODEL, text)
    assert str(error.value) == sentence


@pytest.mark.parametrize("call", [
    lambda: mha.text.read(MODEL, "a€"),
    lambda: mha.text.extend(MODEL, mha.text.read(MODEL, "a"), "€"),
    lambda: mha.text.continuation_probability(MODEL, "a", "b€"),  # a position within the continuation
    lambda: mha.text.greedy(MODEL, "a€", 2),
], ids=["read", "extend", "continuation", "greedy"])
def test_every_public_function_checks_through_parse_text(call):
    with pytest.raises(ValueError, match="'€' \\(position 1\\) is not in the model's 65 characters"):
        call()


def test_the_context_is_full_at_128_and_extend_refuses_one_more():
    reading = mha.text.read(MODEL, "x" * 128)
    assert len(reading.guess) == 128
    with pytest.raises(ValueError, match="^129 characters is longer than the model's context of 128$"):
        mha.text.extend(MODEL, reading, "y")


@pytest.mark.parametrize("off, sentence", [
    ([(2, 0)], "head 2.0 does not exist: the model has layers 0-1, heads 0-3 in each"),
    ([(0, 4)], "head 0.4 does not exist: the model has layers 0-1, heads 0-3 in each"),
    ([3], "a head is a (layer, head) pair, got 3"),
])
def test_a_head_the_model_lacks_is_refused(off, sentence):
    with pytest.raises(ValueError) as error:
        mha.text.read(MODEL, "abc", off)
    assert str(error.value) == sentence


def test_the_experiments_refuse_what_they_cannot_do():
    with pytest.raises(ValueError, match="^count must be a whole number of at least 1, got 0$"):
        mha.text.greedy(MODEL, "abc", 0)
    with pytest.raises(ValueError, match="^126 characters and 3 more to read is longer than the model's context of 128$"):
        mha.text.greedy(MODEL, "x" * 126, 4)
    assert len(mha.text.greedy(MODEL, "x" * 126, 3).text) == 3  # the last pick is never read back in
    with pytest.raises(ValueError, match="^the text is empty"):
        mha.text.continuation_probability(MODEL, "abc", "")
    with pytest.raises(ValueError, match="^129 characters is longer than the model's context of 128$"):
        mha.text.continuation_probability(MODEL, "x" * 126, "abc")


def test_the_experiments_are_the_reading_s_own_probabilities():
    """continuation_probability is the product of the teacher-forced probabilities read off one Reading;
    greedy's picks are each reading's guess, fed back in."""
    prompt, continuation = "get ab12\nok ", "ab1"
    reading = mha.text.read(MODEL, prompt + continuation)
    expected = [reading.probabilities[len(prompt) - 1 + k][MODEL.vocab.index(c)] for k, c in enumerate(continuation)]
    result = mha.text.continuation_probability(MODEL, prompt, continuation)
    assert [p for _, p in result.per_character] == pytest.approx(expected, abs=1e-12)
    assert result.probability == pytest.approx(expected[0] * expected[1] * expected[2], rel=1e-12)
    picks = mha.text.greedy(MODEL, prompt, 3)
    text = prompt
    for char, p in zip(picks.text, picks.probabilities):
        reading = mha.text.read(MODEL, text)
        assert (char, p) == (reading.guess[-1], pytest.approx(reading.probability[-1], abs=1e-12))
        text += char
