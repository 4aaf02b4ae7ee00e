"""Predict, then check: one question per section, asked before the figure shows the answer.

A question is pre-rendered as a fieldset of radio buttons and a Check button;
its answer and the explanation are NOT in the page: build.py writes answers()
to answers.json, which boot.js fetches when the reader checks (so the page
holds no spoiler, and checking works before Python has loaded). The right
answer and every number in an explanation are computed here by mha at build
time, for the section's default example, which the explanation names.

Prose or a figure that would give an answer away waits in the section's HTML
with data-after="ID" hidden; boot.js shows it on Check, and hides it again
(with the verdict) when the reader picks another answer. An element with
data-before="ID" is shown until then (a note saying what waits).
"""

import functools
from typing import Callable, NamedTuple

import mha
import mha.text
import mha.text_lesson
from figures import competition, kv
from figures import text, training
from figures.registry import Figure
from page.dom import share_text, vector_text
from page.state import MAX_DISTRACTORS, changed, compute, default_state, model_shape, with_cross


class Question(NamedTuple):
    """prompt (or a function that computes it at build time); options: (value, label) pairs; answer: the right value (computed by mha); verdicts: value -> why
    that choice is right or wrong; explanation(): the sentences shown after any check."""

    prompt: str
    options: tuple
    answer: object  # the right value, or a function that computes it at build time
    verdicts: object  # value -> why that choice is right or wrong, or a function that computes it
    explanation: Callable


# --- section 2: two narrow heads or one wide one ---------------------------------------------

def recipe_costs():
    """(2 heads of width 2, 1 head of width 4) over section 3's tokens: mha.attention_costs of each."""
    n, d = len(mha.LESSON_TOKENS), len(mha.LESSON_TOKENS[0])
    return mha.attention_costs(n, d, mha.LESSON_HEADS), mha.attention_costs(n, d, 1)


def _recipe_prompt():
    many, one = recipe_costs()
    return f"{many.heads} heads of width {many.head_width} or 1 head of width {one.width}: which layer costs more?"


def _recipe_answer():
    many, one = recipe_costs()
    if (many.parameters, many.multiply_adds) == (one.parameters, one.multiply_adds):
        return "same"
    return "many" if many.multiply_adds > one.multiply_adds else "one"


def _recipe():
    many, one = recipe_costs()
    return (f"Over section 3's starting {many.tokens} tokens both layers hold {many.parameters} parameters "
            f"(W_Q, W_K, W_V and W_O, {many.width} \u00d7 {many.width} each) and do {many.multiply_adds} "
            f"multiply-adds. A narrow head's dot products run over {many.head_width} numbers instead of "
            f"{many.width}, so {many.heads} of them add up to the wide head's work. Only the softmax grows: "
            f"{many.weights} weights against {one.weights}, one {many.tokens} \u00d7 {many.tokens} table per head.")


# --- section 3: a dot product is not a similarity --------------------------------------------

STRETCHED = 2.0  # the question's edit: token 0's slot 0, so its slots 0-1 become [2, 0] (same direction, twice as long)


def stretched_tokens():
    """The worked example with token 0's slot 0 set to STRETCHED."""
    tokens = [list(row) for row in mha.LESSON_TOKENS]
    tokens[0][0] = STRETCHED
    return tokens


def worked_head_0(tokens=mha.LESSON_TOKENS):
    """(raw dot products, softmax weights) of token 1's query in head 0 (the worked example unless told)."""
    result = mha.multi_head_attention(tokens, mha.LESSON_HEADS)
    parts, _ = mha.slice_scores(tokens[1], tokens, result.head_slots)  # identity slices: head 0 reads slots 0-1
    return [p[0] for p in parts], result.weights[0][1]


def _worked_prompt():
    key = vector_text(mha.multi_head_attention(stretched_tokens(), mha.LESSON_HEADS).key_heads[0][0])
    return (f"Set token 0's slot 0 to {STRETCHED:g}: its slots 0\u20131 double to {key}. In head 0, what happens "
            "to token 1's weight on token 0?")


def _worked_answer():
    before, after = worked_head_0()[1][0], worked_head_0(stretched_tokens())[1][0]
    return "same" if before == after else "up" if after > before else "down"


def _worked():
    (on_0, on_self), weights = worked_head_0()
    (on_stretched, _), stretched = worked_head_0(stretched_tokens())
    query = vector_text(mha.multi_head_attention(mha.LESSON_TOKENS, mha.LESSON_HEADS).query_heads[0][1])
    return (f"Token 1's query in head 0 is {query}. It scores {on_0:g} against token 0's key and only {on_self:g} "
            f"against its own, so token 0 already led: a dot product is not a similarity. Stretched, token 0's "
            f"key scores {on_stretched:g}, and token 1's row goes from {vector_text(weights, share_text)} to "
            f"{vector_text(stretched, share_text)}. Type {STRETCHED:g} into token 0's slot 0 to see it.")


# --- section 4: who notices a changed time stamp ---------------------------------------------

def exercise_moved():
    """Which of head 0, head 1 and the one wide head change when the exercise's edit is made."""
    before = mha.multi_head_attention(mha.LESSON_TOKENS, mha.LESSON_HEADS)
    after = mha.multi_head_attention(mha.EXERCISE_TOKENS, mha.LESSON_HEADS)
    wide = mha.single_head_attention(mha.LESSON_TOKENS)[1] != mha.single_head_attention(mha.EXERCISE_TOKENS)[1]
    return before.weights[0] != after.weights[0], before.weights[1] != after.weights[1], wide


def _exercise_answer():
    return {(True, True, True): "all", (False, True, True): "head-1-wide", (False, True, False): "head-1",
            (True, False, False): "head-0"}[exercise_moved()]


def _exercise():
    after = mha.multi_head_attention(mha.EXERCISE_TOKENS, mha.LESSON_HEADS)
    wide_before = mha.single_head_attention(mha.LESSON_TOKENS)[1]
    wide_after = mha.single_head_attention(mha.EXERCISE_TOKENS)[1]
    return (f"Head 0 reads slots 0\u20131, which the edit leaves alone, so not one of its weights moves. Head 1 "
            f"reads the edited slots: both tokens now carry [0, 1], the scores tie, and both rows become "
            f"{vector_text(after.weights[1][0], share_text)}. The one wide head reads all four slots, so it moves too, from "
            f"{vector_text(wide_before[0], share_text)} and {vector_text(wide_before[1], share_text)} to "
            f"{vector_text(wide_after[0], share_text)} and {vector_text(wide_after[1], share_text)}; "
            f"but it is one distribution, and nothing in it says which slots changed.")


# --- section 7: the causal mask and cross-attention ------------------------------------------

def cross_row():
    """Head 0's cross-attention row of token 0 as section 7 draws it with the causal mask on (page.state.compute)."""
    state = changed(with_cross(default_state(), True), causal=True)
    return compute(state).cross.weights[0][0]


def _cross_answer():
    row = cross_row()
    read = [w > 0 for w in row]
    return "all" if all(read) else "first" if read == [True] + [False] * (len(row) - 1) else "some"


def _cross():
    row = cross_row()
    return (f"With the mask on, token 0's row in head 0 is {vector_text(row, share_text)}: every context token gets a "
            "share. The mask stops a sequence from reading its own later tokens; the context is another sequence, "
            "so none of it comes later.")


# --- section 6: whose cache costs more per token ---------------------------------------------

BYTES_PER_VALUE = 2  # 16-bit keys and values, as section 6's calculator starts


def sharing_models():
    """Llama-2-7B's and Llama-3-70B's shapes (mha.MODEL_SHAPES) and their bills for one kept token."""
    shapes = [model_shape(name) for name in kv.QUESTION_MODELS]
    return [(shape, mha.model_bill(shape, 1, BYTES_PER_VALUE)) for shape in shapes]


def _sharing_answer():
    (_, small), (_, big) = sharing_models()
    return "same" if small.per_token == big.per_token else "small" if small.per_token > big.per_token else "big"


def _sharing_prompt():
    (small, _), (big, _) = sharing_models()
    return (f"{big.name} has about {round(big.times_the_params(small))} times the parameters of {small.name}. "
            "Whose KV cache costs more per kept token?")


def _sharing():
    (small, small_bill), (big, big_bill) = sharing_models()

    def bill(shape, per_token):
        return (f"{shape.name}, 2 \u00d7 {shape.layers} layers \u00d7 {shape.kv_heads} key/value heads \u00d7 "
                f"width {shape.head_width} \u00d7 {BYTES_PER_VALUE} bytes = {mha.format_bytes(per_token)}")

    return (f"A token costs a key and a value per layer and per key/value head, 2 bytes a number: "
            f"{bill(small, small_bill.per_token)}; {bill(big, big_bill.per_token)}. The big model has more "
            f"layers, but its {big.heads} query heads share {big.kv_heads} key/value heads, while each of "
            f"{small.name}'s {small.heads} keeps its own.")


def _trained_heads():
    """The build-time run's last checkpoint, its head names, and classify's pair: (final, names, previous-token
    head's index, induction head's index)."""
    final = training.run_data()["checkpoints"][-1]
    names = [tuple(n) for n in final["heads"]]
    facts = training.describe_run(final)
    return final, names, names.index(facts["previous"][0]), names.index(facts["induction"][0])


def _trained_prompt():
    _, names, prev, ind = _trained_heads()
    return (f"In the build-time run, switch off {training.head_label(*names[prev])} alone, the top previous-token "
            f"head. What happens to {training.head_label(*names[ind])}'s induction pattern?")


def _trained_effect():
    """(answer, explanation, verdicts) for section 8's question, from the build-time run's final measurements: the
    induction head's scores with every head on, with the previous-token head alone off, and with its whole layer
    off."""
    final, names, prev, ind = _trained_heads()
    alone = 1 << prev
    layer = training.mask_of(names, {n for n in names if n[0] == names[prev][0]})
    (prev_on, ind_on), (prev_off, ind_off) = final["scores"][ind], final["scores_off"][alone][ind]
    answer = mha.training.pattern_change((prev_on, ind_on), (prev_off, ind_off))
    name, percent = training.head_label(*names[ind]), training.percent
    explanation = (f"In the build-time run, {name}'s induction score on the held-out sequences goes from "
                   f"{ind_on:.2f} to {ind_off:.2f} with {training.head_label(*names[prev])} off, and to "
                   f"{final['scores_off'][layer][ind][1]:.2f} with all of layer {names[prev][0]} off; accuracy "
                   f"from {percent(final['ablated'][0])} to {percent(final['ablated'][alone])}, and to "
                   f"{percent(final['ablated'][layer])}. " + TRAINED_WHY[answer] + " Try both below.")
    verdicts = {value: TRAINED_VERDICTS[value][value == answer] for value in TRAINED_VERDICTS}
    return answer, explanation, verdicts


TRAINED_WHY = {  # the explanation's last sentence, for the answer the measurements give
    "fades": "The head it pairs with wrote most of what it matched against.",
    "stays": "The other heads of that layer write much of the same: they share the job.",
    "previous": "Without that head's writing, it falls back to looking one position back."}
TRAINED_VERDICTS = {  # option -> (verdict when it is wrong, verdict when it is right)
    "stays": ("Not in this run: the heads left in that layer cannot stand in for it.",
              "Right: the other heads of that layer write much of the same."),
    "fades": ("Not in this run: its score keeps more than half of what it was.",
              "Right: it matched each letter against what that one head wrote."),
    "previous": ("Not quite: it does not turn to the position just before.",
                 "Right: it falls back to looking one position back."),
}


# --- section 9: one prompt can hang on one head ------------------------------------------------

@functools.cache
def hang():
    """mha.text_lesson.hanging_head of the default seed's model on the default text (measured once a build)."""
    return mha.text_lesson.hanging_head(text.model())


def text_heads():
    """(the induction head whose switch lowers the default id's end most, p of that end with every head on, p with it
    off, its average cost to copying)."""
    found = hang()
    return found.head, found.on, found.off, text.cost(mha.text.DEFAULT_SEED, found.head, "unseen")


HOLDS = (("stays", "it keeps more than half", 0.5), ("some", "it keeps a tenth to a half", 0.1),
         ("collapses", "it keeps under a tenth", 0.0))  # (value, label, lowest share of p kept)


def _text_answer():
    return next(value for value, _, low in HOLDS if hang().kept >= low)


def _text_prompt():
    name, on, _, average = text_heads()
    found = hang().found
    reply = mha.text_lesson.DEFAULT_PROMPT[:found.prompt_length].splitlines()[-1]
    return (f"Seed {mha.text.DEFAULT_SEED}, default text: after \u201c{reply}\u201d, p({found.end}) = {on:.2f}. "
            f"Switch off {training.head_label(*name)}, an induction head that costs copying {average:.0%} on "
            f"average. What happens to that p?")


def _text_verdicts():
    kept = f"it keeps {hang().kept:.1%} of that p."
    return {value: f"Right: {kept}" if value == _text_answer() else f"Not for this prompt: {kept}"
            for value, _, _ in HOLDS}


def _text():
    name, on, off, average = text_heads()
    found = hang()
    return (f"It falls from {on:.2f} to {off:.4f}, and its guesses write {text.shown_text(found.written_off)}, not "
            f"{text.shown_text(found.written_on)}: {found.characters_kept} of {len(found.found.end)} characters of this id, "
            f"where without {training.head_label(*name)} the model loses {average:.0%} of its copying on average. An "
            f"average over prompts says little about one prompt. Switch it off below and read the experiment's first "
            f"line.")


# The prompts question's answers: (key, label, (lowest share, highest share) the answer stands for).
SHARES = (("most", "nearly all of it (over 0.9)", (0.9, 1.0)), ("half", "about half", (0.35, 0.65)),
          ("fifth", "about a fifth", (0.1, 0.35)), ("none", "almost none (under 0.01)", (0.0, 0.01)))


def _prompts_answer():
    """The SHARES key whose range holds head 0's weight on token 0 at MAX_DISTRACTORS distractors."""
    share = competition.weights_at(MAX_DISTRACTORS)[0]
    (key,) = [key for key, _, (low, high) in SHARES if low <= share < high]
    return key


def _prompts():
    row = competition.query_rows(MAX_DISTRACTORS)[0]  # head 0: [token 0, distractors..., the query itself]
    units = mha.weight_ratios(row, 1)  # in units of one distractor's weight (score 0: e^0 = 1)
    lead, own = units[0], units[-1]
    _, head_1, wide = competition.relevant_weights(MAX_DISTRACTORS)
    return (f"In head 0 a distractor scores 0 against the query, so take its weight as the unit: token 0 then "
            f"weighs {lead:.1f} and the query itself {own:.1f}, at any count. Among {MAX_DISTRACTORS:,} "
            f"distractors the row holds {lead:.1f} + {own:.1f} + {MAX_DISTRACTORS:,} units, so token 0 keeps "
            f"{share_text(row[0])} of it. A large lead shelters a head from a small crowd, not from any crowd. At the "
            f"same count the wide head keeps {share_text(wide)} and head 1 {share_text(head_1)}.")


QUESTIONS = {
    "recipe": Question(
        _recipe_prompt(),
        (("many", "the 2 heads"), ("one", "the 1 wide head"), ("same", "neither: they cost the same")),
        _recipe_answer(),
        {"many": "Not quite: each head works on half the numbers, so two of them do one wide head's work.",
         "one": "Not quite: its longer dot products are exactly the two narrow heads' work added up.",
         "same": "Right: the same parameters and the same multiply-adds."},
        _recipe),
    "worked": Question(
        _worked_prompt(),
        (("up", "it rises"), ("same", "it stays: the direction is the same"), ("down", "it falls")),
        _worked_answer(),
        {"up": "Right: a dot product grows with the key's length, not only with its direction.",
         "same": "Not quite: a cosine would stay, but a dot product doubles when the key does.",
         "down": "Not quite: the key is no less like the query than before, and its dot product doubles."},
        _worked),
    "exercise": Question(
        "Copy token 0's time stamp (slots 2\u20133) into token 1. Which tables move?",
        (("head-0", "head 0 only"), ("head-1", "head 1 only"), ("head-1-wide", "head 1 and the one wide head"),
         ("all", "all three")),
        _exercise_answer(),
        {"head-0": "Not quite: head 0 never reads slots 2\u20133.",
         "head-1": "Close: head 1 moves, but so does the one head that reads every slot.",
         "head-1-wide": "Right: only the tables that read the edited slots change.",
         "all": "Not quite: head 0's slice of both tokens is untouched by the edit."},
        _exercise),
    "cross": Question(
        "Switch on cross-attention and the causal mask. Which context tokens can section 3's token 0 read?",
        (("first", "only context token 0, at its own position"), ("some", "some, but not all"),
         ("all", "all of them")),
        _cross_answer(),
        {"first": "Not quite: the mask orders one sequence's own tokens; the context is another sequence.",
         "some": "Not quite: no context token is later than an asking token.",
         "all": "Right: the causal mask does not apply across two sequences."},
        _cross),
    "sharing": Question(
        _sharing_prompt(),
        (("big", "Llama-3-70B's"), ("same", "about the same"), ("small", "Llama-2-7B's")),
        _sharing_answer(),
        {"big": "Not quite: the cache grows with layers and key/value heads, not with the parameter count.",
         "same": "Not quite: multiply layers by key/value heads for each.",
         "small": "Right: it keeps a key/value head for every query head."},
        _sharing),
    "prompts": Question(
        f"Head 0 reads slots 0\u20131, where no distractor matches at all. Raise the distractors to "
        f"{MAX_DISTRACTORS:,}: how much of head 0's row stays on token 0?",
        tuple((key, label) for key, label, _ in SHARES),
        _prompts_answer(),
        {"most": "Not quite: a distractor that matches nothing still takes a small share, and "
                 f"{MAX_DISTRACTORS:,} small shares add up.",
         "half": f"Not quite: token 0's lead is worth {competition.leads()[0]:.0f} distractors, and there are "
                 f"{MAX_DISTRACTORS:,}.",
         "fifth": "Right: a crowd big enough outweighs even a large lead.",
         "none": "Not quite: that is head 1's fate, where every distractor beats token 0; head 0 keeps far more."},
        _prompts),
    "trained": Question(
        _trained_prompt,  # a function: it reads the build-time run, which the page's Python never trains
        (("fades", "its induction stripe fades to under half"), ("stays", "it keeps more than half of it"),
         ("previous", "it turns into a previous-token stripe")),
        lambda: _trained_effect()[0],
        lambda: _trained_effect()[2],
        lambda: _trained_effect()[1]),
    "text": Question(
        _text_prompt,  # a function: it reads a shipped model, which the page's first paint does not load
        tuple((value, label) for value, label, _ in HOLDS),
        _text_answer,
        _text_verdicts,
        _text),
}


def question(qid):
    """The pre-rendered question: <fieldset> with the prompt, one radio per option, Check, an empty answer."""
    q = QUESTIONS[qid]
    name = f"q-{qid}"
    options = [["label", {"class": "predict-option", "for": f"{name}-{value}"},
                ["input", {"type": "radio", "name": name, "value": value, "id": f"{name}-{value}"}], " ", label]
               for value, label in q.options]
    return ["fieldset", {"class": "predict", "data-question": qid},
            ["legend", {}, ["strong", {}, "Predict first. "], q.prompt() if callable(q.prompt) else q.prompt],
            *options,
            ["button", {"type": "button", "class": "predict-check", "data-check": qid}, "Check my answer"],
            ["div", {"class": "predict-answer", "id": f"{name}-answer", "role": "status", "aria-live": "polite"}]]


def answers():
    """{question id: {"answer", "verdicts", "explanation"}}: what build.py writes to answers.json."""
    def value(field):
        return field() if callable(field) else field
    return {qid: {"answer": value(q.answer), "verdicts": value(q.verdicts), "explanation": q.explanation()}
            for qid, q in QUESTIONS.items()}


FIGURES = {f"q-{qid}": Figure(lambda s, v, b, qid=qid: [question(qid)]) for qid in QUESTIONS}
PROSE = {}
