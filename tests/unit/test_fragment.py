"""The URL fragment: compact round trips, and hostile links refused with a sentence."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from page import fragment
from page import state as figure_state
import mha


def figure_settings():
    """What decode() gives for an empty link: the default state's figure settings (not the KV calculator)."""
    return {key: figure_state.default_state()[key] for key in figure_state.FIGURE_KEYS}

# --- test data ---------------------------------------------------------------

LESSON_FRAGMENT = "t=1,0,0,1;0.9,0.1,1,0&h=2&kv=2&c=0&p=id&s=0&d=0&len=8192"

HOSTILE = [  # (fragment, words the message must contain)
    ("#<script>alert(1)</script>", "characters"),
    ("#t=<img src=x onerror=alert(1)>", "characters"),
    ("#t=%3Cscript%3Ealert(1)%3C%2Fscript%3E", "characters"),
    ("#t=1,0;javascript:alert(1)", "characters"),
    ("#h=99999999999999999999", "between 1 and 64"),
    ("#h=" + "9" * 5000, "characters long"),
    ("#h=0", "between 1 and 64"),
    ("#h=3", "not divisible by 3 heads"),
    ("#h=2&kv=3", "not divisible by 3 key/value heads"),
    ("#h=2&kv=1&p=id", "shared key/value heads need random projections"),
    ("#t=nan,1", "not a finite number"),
    ("#t=1e309,1", "not a finite number"),
    ("#t=inf,1", "not a finite number"),
    ("#t=1e300,1e300", "too large"),
    ("#t=1e200,0,0,1;0.9,0.1,1,0&x=0,0,0,0;0,0,0,0", "too large"),  # self-attention overflows, cross does not
    ("#t=1,2;3", "has 1 slots"),
    ("#t=", "empty"),
    ("#t=1_0,2", "characters"),
    ("#t=" + "1" * 41 + ",2", "characters long"),
    ("#t=" + ";".join(["1,0"] * (mha.MAX_TOKENS + 1)), "at most 32 tokens"),
    ("#t=" + ",".join(["1"] * (mha.MAX_WIDTH + 1)) + "&h=1", "between 1 and 64"),
    ("#t=" + "1," * 200_000, "characters long"),
    ("#x=1,2,3&t=1,0,0,1", "width 3, expected 4"),
    ("#c=2", "causal must be one of"),
    ("#p=evil", "projections must be one of"),
    ("#s=-1", "between 0 and"),
    ("#d=1001", "distractors must be between 0 and 1,000"),
    ("#len=0", "sequence length must be between 1 and 10,000,000, got 0"),
    ("#len=10000001", "between 1 and 10,000,000"),
    ("#len=8k", "sequence length: '8k' is not a whole number"),
    ("#zz=1", "not a setting"),
    ("#h", "has no value"),
    ("#h=2&h=2", "appears twice"),
]

# --- strategies ------------------------------------------------------------------

numbers = st.floats(min_value=-100, max_value=100, allow_nan=False, allow_infinity=False)


@st.composite
def states(draw):
    """Valid states: heads divides the width, kv_heads divides heads."""
    heads = draw(st.sampled_from([1, 2, 4]))
    width = heads * draw(st.integers(1, 3))
    kv_heads = draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0]))
    rows = lambda: st.lists(st.lists(numbers, min_size=width, max_size=width), min_size=1, max_size=4)  # noqa: E731
    return {"tokens": draw(rows()), "heads": heads, "kv_heads": kv_heads, "causal": draw(st.booleans()),
            # shared key/value heads need random projections (state.check_sharing)
            "projections": "random" if kv_heads < heads else draw(st.sampled_from(["identity", "random"])),
            "seed": draw(st.integers(0, figure_state.MAX_SEED)), "context": draw(st.none() | rows()),
            "distractors": draw(st.integers(0, 1000)),
            "cost_seq_len": draw(st.integers(1, figure_state.MAX_COST_SEQ_LEN))}


# --- tests ------------------------------------------------------------------------

def test_the_lesson_state_is_short_and_readable():
    assert fragment.encode(figure_settings()) == LESSON_FRAGMENT
    assert fragment.decode("#" + LESSON_FRAGMENT) == figure_settings()


def test_an_empty_fragment_is_the_lesson():
    assert fragment.decode("") == fragment.decode("#") == figure_settings()


def test_missing_settings_take_defaults_and_kv_follows_heads():
    state = fragment.decode("#t=1,2,3,4&h=4&c=1")
    assert state["tokens"] == [[1.0, 2.0, 3.0, 4.0]] and state["kv_heads"] == 4 and state["causal"] is True


def test_cross_attention_context_round_trips():
    state = {**figure_settings(), "context": [[0.5, 0.5, 0.5, 0.5]], "projections": "random", "seed": 7}
    text = fragment.encode(state)
    assert "x=0.5,0.5,0.5,0.5" in text and "p=rand" in text
    assert fragment.decode(text) == state


@pytest.mark.parametrize("old", ["temp=1", "temp=0.1", "temp=0.4", "temp=hot", "temp=", "temp", "temp=1&temp=2"])
def test_an_old_link_with_a_temperature_opens_without_it_and_without_a_word(old):
    """The temperature slider was cut (issue 23): whatever temp= held, the rest of the link still opens."""
    assert fragment.decode(f"#t=1,2,3,4&h=4&{old}&c=1") == {**figure_settings(), "tokens": [[1.0, 2.0, 3.0, 4.0]],
                                                           "heads": 4, "kv_heads": 4, "causal": True}
    assert fragment.decode("#" + LESSON_FRAGMENT + "&" + old) == figure_settings()
    assert "temp" not in fragment.encode(figure_settings())
    with pytest.raises(ValueError, match="'tempo' is not a setting"):  # only the retired key itself is let through
        fragment.decode("#tempo=1")


def test_section_2s_sequence_length_round_trips_and_an_old_link_without_one_takes_the_models_context():
    """len=2 comes back as 2; a link written before the field existed has Llama-3-8B's 8,192."""
    short = {**figure_settings(), "cost_seq_len": 2}
    assert fragment.encode(short).endswith("&len=2")
    assert fragment.decode(fragment.encode(short)) == short
    assert fragment.decode("#t=1,0,0,1;0.9,0.1,1,0&h=2")["cost_seq_len"] == 8192


def test_percent_encoded_numbers_are_read():
    assert fragment.decode("#t=1%2C0%2C0%2C1%3B0.9%2C0.1%2C1%2C0") == figure_settings()


@settings(max_examples=150, deadline=None)
@given(states())
def test_round_trip(state):
    assert fragment.decode(fragment.encode(state)) == state


@settings(max_examples=50, deadline=None)
@given(st.lists(numbers, min_size=1, max_size=8))
def test_numbers_come_back_bit_for_bit(row):
    state = {**figure_settings(), "tokens": [row], "heads": 1, "kv_heads": 1}
    back = fragment.decode(fragment.encode(state))["tokens"][0]
    assert [x.hex() for x in back] == [float(x).hex() for x in row]


@pytest.mark.parametrize("text, words", HOSTILE)
def test_hostile_links_are_refused_with_a_sentence(text, words):
    with pytest.raises(ValueError) as error:
        fragment.decode(text)
    message = str(error.value)
    assert message.startswith("ignored the link's settings: ")
    assert words in message
    assert len(message) < 200


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_garbage_either_decodes_to_a_valid_state_or_raises_value_error(text):
    try:
        state = fragment.decode(text)
    except ValueError as error:
        assert str(error).startswith("ignored the link's settings: ")
    else:
        mha.multi_head_attention(state["tokens"], state["heads"], kv_heads=state["kv_heads"],
                                 causal=state["causal"])
        if state["context"] is not None:  # the page's cross-attention: no causal mask across two sequences
            mha.multi_head_attention(state["tokens"], state["heads"], kv_heads=state["kv_heads"],
                                     context=state["context"])


@pytest.mark.parametrize("text, expected", [
    ("1%2C0%3B0.9", "1,0;0.9"),          # escaped separators, as some browsers write them
    ("%E2%82%AC", "\u20ac"),             # one UTF-8 character in three escapes
    ("%E2x%82", "\ufffdx\ufffd"),        # broken UTF-8: each bad byte is U+FFFD
    ("100%", "100%"), ("%zz%4", "%zz%4"),  # a % that starts no escape stays as it is
    ("", ""),
])
def test_unquote_decodes_escapes_as_utf8_like_urllib(text, expected):
    assert fragment.unquote(text) == expected


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from("%0123456789abcdefABCDEFxz,;=&\u00e9"), max_size=30))
def test_unquote_agrees_with_urllib_on_any_text(text):
    from urllib.parse import unquote  # the reference, in the tests only: the page does not import it
    assert fragment.unquote(text) == unquote(text, errors="replace")


# --- one bad key costs only itself (issue 30) ----------------------------------------------

def test_one_bad_key_is_refused_by_name_and_the_good_keys_are_kept():
    """Issue 30's link: width 4 is not divisible by 3 heads, so h=3 goes; the tokens, the random projections and
    the 50 distractors stay, and the heads keep the default (2)."""
    settings, refused = fragment.read("#t=1,0,0,1;0.9,0.1,0,1&h=3&p=rand&d=50")
    assert settings == {**figure_settings(), "tokens": [[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 0.0, 1.0]],
                        "projections": "random", "distractors": 50}
    assert refused == [("h=3", "width 4 is not divisible by 3 heads")]


@pytest.mark.parametrize("text, kept, name, words", [
    ("#zz=1&s=7", {"seed": 7}, "zz", "not a setting this page knows"),
    ("#s=-1&d=5", {"distractors": 5}, "s=-1", "seed must be between 0 and"),
    ("#d=5&d=6", {"distractors": 5}, "d", "appears twice"),
    ("#c&s=3", {"seed": 3}, "c", "has no value"),
    ("#kv=1&p=rand&h=4", {"heads": 4, "kv_heads": 1, "projections": "random"}, None, None),  # p is read before kv
    ("#h=4&kv=3", {"heads": 4, "kv_heads": 4}, "kv=3", "divisible"),
    ("#t=<b>&s=2", {"seed": 2}, "t", "characters it should not"),
])
def test_each_key_stands_on_its_own(text, kept, name, words):
    settings, refused = fragment.read(text)
    assert settings == {**figure_settings(), **kept}
    if name is None:
        assert refused == []
    else:
        assert [n for n, _ in refused] == [name] and words in refused[0][1]


def test_a_link_with_no_good_key_gives_no_settings_and_says_why():
    assert fragment.read("#h=7") == (None, [("h=7", "width 4 is not divisible by 7 heads")])
    assert fragment.read("") == (figure_settings(), [])


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="thxkvcpsdlen=&;,.01234-9ab%", max_size=80))
def test_read_never_raises_and_what_it_keeps_passes_the_gate(text):
    settings, refused = fragment.read(text)
    assert all(isinstance(name, str) and why for name, why in refused)
    if settings is not None:
        figure_state.compute({**figure_state.default_state(), **settings})
