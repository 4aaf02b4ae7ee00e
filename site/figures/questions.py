"""Predict, then check: one question per section, asked before the figure shows the answer.

A question is pre-rendered as a fieldset of radio buttons and a Check button;
its answer and the explanation are NOT in the page: build.py writes answers()
to answers.json, which boot.js fetches when the reader checks (so the page
holds no spoiler, and checking works before Python has loaded). Every number
in an explanation is computed here by mha at build time, for the section's
default example, which the explanation names.
"""

from typing import Callable, NamedTuple

import mha
from figures import competition
from figures.registry import Figure
from page.dom import fixed
from page.state import MAX_DISTRACTORS


class Question(NamedTuple):
    """prompt; options: (value, label) pairs; answer: the right value; verdicts: value -> why that
    choice is right or wrong; explanation(): the sentences shown after any check."""

    prompt: str
    options: tuple
    answer: str
    verdicts: dict
    explanation: Callable


def _worked():
    head_1 = mha.multi_head_attention(mha.LESSON_TOKENS, mha.LESSON_HEADS).weights[1][0]
    return (f"In the worked example, token 0's query in head 1 is [0, 1]. It scores 1 against its own key and "
            f"0 against token 1's key [1, 0]; divided by \u221a2 the gap is 0.7071, and the softmax turns it into "
            f"{fixed(head_1[0])} on itself and {fixed(head_1[1])} on token 1. Compare head 1's first row below.")


def _exercise():
    before = mha.multi_head_attention(mha.LESSON_TOKENS, mha.LESSON_HEADS)
    after = mha.multi_head_attention(mha.EXERCISE_TOKENS, mha.LESSON_HEADS)
    wide_before = mha.single_head_attention(mha.LESSON_TOKENS)[1][0][0]
    wide_after = mha.single_head_attention(mha.EXERCISE_TOKENS)[1][0][0]
    assert before.weights[0] == after.weights[0]  # the explanation's first claim, checked where it is made
    return (f"Head 0 reads slots 0\u20131, which the edit leaves alone, so its scores and weights stay exactly as "
            f"they were. Head 1 reads the edited slots: both tokens now carry [0, 1], the scores tie, and every row "
            f"becomes {fixed(after.weights[1][0][0])} / {fixed(after.weights[1][0][1])}. The one wide head reads all "
            f"four slots, so it moves too (token 0's weight on itself goes from {fixed(wide_before)} to "
            f"{fixed(wide_after)}), but nothing in its numbers says which slots changed.")


def _cross():
    result = mha.multi_head_attention(mha.LESSON_TOKENS, mha.LESSON_HEADS, context=mha.LESSON_CONTEXT)
    rows, cols = len(result.weights[0]), len(result.weights[0][0])
    return (f"One row per token that asks (the {rows} query tokens from section 3) and one column per token that "
            f"answers (the {cols} context tokens): {rows} \u00d7 {cols}. Each row is still one softmax, so it sums "
            f"to 1 across the context tokens.")


def _sharing():
    shape = next(s for s in mha.MODEL_SHAPES if s.name == "Llama-3-8B")
    bill = mha.kv_cache_bill(shape.layers, shape.heads, shape.kv_heads, 8192, shape.head_width)
    return (f"The cache stores keys and values per key/value head, not per query head: {shape.kv_heads} instead of "
            f"{shape.heads}, so it is {shape.kv_heads}/{shape.heads} of the unshared size: "
            f"{mha.format_bytes(bill.bytes)} instead of {mha.format_bytes(bill.full_bytes)} for one "
            f"8192-token conversation, {bill.saving:.0%} saved. The query heads still differ; only their keys "
            f"and values are shared.")


def _prompts():
    row = competition.query_rows(MAX_DISTRACTORS)[0]  # head 0: [token 0, distractors..., the query itself]
    lead, own = row[0] / row[1], row[-1] / row[1]       # in units of one distractor's weight (score 0: e^0 = 1)
    _, head_1, wide = competition.relevant_weights(MAX_DISTRACTORS)
    return (f"In head 0 a distractor scores 0 against the query, so take its weight as the unit: token 0 then "
            f"weighs {lead:.1f} and the query itself {own:.1f}, at any count. Among {MAX_DISTRACTORS:,} "
            f"distractors the row holds {lead:.1f} + {own:.1f} + {MAX_DISTRACTORS:,} units, so token 0 keeps "
            f"{fixed(row[0])} of it. A large lead shelters a head from a small crowd, not from any crowd. At the "
            f"same count the wide head keeps {fixed(wide)} and head 1 {fixed(head_1)}.")


QUESTIONS = {
    "worked": Question(
        "Head 1 reads only the time slots (2\u20133): token 0 carries [0, 1] there and token 1 carries [1, 0]. "
        "Where will token 0's attention go in head 1?",
        (("self", "mostly to itself"), ("other", "mostly to token 1"), ("even", "half and half")),
        "self",
        {"self": "Right: its own key matches its query best.",
         "other": "Not quite: token 1's time slots point the other way, so their dot product is the lowest.",
         "even": "Not quite: an even split needs equal scores, and these two scores differ."},
        _worked),
    "exercise": Question(
        "Give token 1 the time stamp of token 0, so its slots 2\u20133 become [0, 1]. Which tables will move?",
        (("head-0", "head 0 only"), ("head-1", "head 1 only"), ("head-1-wide", "head 1 and the one wide head"),
         ("all", "all three")),
        "head-1-wide",
        {"head-0": "Not quite: head 0 never reads slots 2\u20133.",
         "head-1": "Close: head 1 moves, but so does the one head that reads every slot.",
         "head-1-wide": "Right: only the tables that read the edited slots change.",
         "all": "Not quite: head 0's slice of both tokens is untouched by the edit."},
        _exercise),
    "cross": Question(
        "Switch on cross-attention: section 3's 2 tokens ask, and the 3 context tokens supply keys and values. "
        "What shape will each head's weight table have (rows \u00d7 columns)?",
        (("2x2", "2 \u00d7 2"), ("2x3", "2 \u00d7 3"), ("3x2", "3 \u00d7 2"), ("3x3", "3 \u00d7 3")),
        "2x3",
        {"2x2": "Not quite: the columns now come from the context, not from the tokens that ask.",
         "2x3": "Right: a row per asking token, a column per answering token.",
         "3x2": "Not quite: rows belong to the tokens that ask, and there are 2 of them.",
         "3x3": "Not quite: the 2 asking tokens give the rows."},
        _cross),
    "sharing": Question(
        "Llama-3-8B gives its 32 query heads 8 key/value heads. Next to a model with one key/value head per "
        "query head, how big is its KV cache?",
        (("same", "the same size"), ("half", "half"), ("quarter", "a quarter"), ("eighth", "an eighth")),
        "quarter",
        {"same": "Not quite: sharing is exactly what makes it smaller.",
         "half": "Not quite: the ratio is 8 key/value heads to 32 query heads.",
         "quarter": "Right: 8 of 32.",
         "eighth": "Not quite: count the key/value heads, not the query heads per group."},
        _sharing),
    "prompts": Question(
        "Head 0 reads only slots 0\u20131, where token 0 is the query's best match and no distractor matches "
        f"at all. Raise the distractors to {MAX_DISTRACTORS:,}: how much of head 0's row stays on token 0?",
        (("most", "nearly all of it (over 0.9)"), ("half", "about half"), ("fifth", "about a fifth"),
         ("none", "almost none (under 0.01)")),
        "fifth",
        {"most": "Not quite: a distractor that matches nothing still takes a small share, and "
                 f"{MAX_DISTRACTORS:,} small shares add up.",
         "half": f"Not quite: token 0's lead is worth a few hundred distractors, and there are {MAX_DISTRACTORS:,}.",
         "fifth": "Right: a crowd big enough outweighs even a large lead.",
         "none": "Not quite: that is head 1's fate, where every distractor beats token 0; head 0 keeps far more."},
        _prompts),
}


def question(qid):
    """The pre-rendered question: <fieldset> with the prompt, one radio per option, Check, an empty answer."""
    q = QUESTIONS[qid]
    name = f"q-{qid}"
    options = [["label", {"class": "predict-option", "for": f"{name}-{value}"},
                ["input", {"type": "radio", "name": name, "value": value, "id": f"{name}-{value}"}], " ", label]
               for value, label in q.options]
    return ["fieldset", {"class": "predict", "data-question": qid},
            ["legend", {}, ["strong", {}, "Predict first. "], q.prompt],
            *options,
            ["button", {"type": "button", "class": "predict-check", "data-check": qid}, "Check my answer"],
            ["div", {"class": "predict-answer", "id": f"{name}-answer", "role": "status", "aria-live": "polite"}]]


def answers():
    """{question id: {"answer", "verdicts", "explanation"}}: what build.py writes to answers.json."""
    return {qid: {"answer": q.answer, "verdicts": q.verdicts, "explanation": q.explanation()}
            for qid, q in QUESTIONS.items()}


FIGURES = {f"q-{qid}": Figure(lambda s, v, b, qid=qid: [question(qid)]) for qid in QUESTIONS}
PROSE = {}
