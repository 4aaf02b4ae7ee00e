"""Predict, then check (figures/questions.py): well-formed questions, no spoiler in the page, answers and
explanations that are the hand-worked ones, and nothing right under a question that gives it away.

Worked by hand (the worked example and exercise are derived in tests/conftest.py):
- section 2, at width 4 over 2 tokens: W_Q, W_K, W_V, W_O are 4 x 4 = 16 each, 64 in all, for any head
  count. Multiply-adds: projections 3 x 2 x 4 x 4 = 96, output 2 x 4 x 4 = 32, and scores and weighted
  sums heads x n x n x head width = 2 x 2 x 2 x 2 = 1 x 2 x 2 x 4 = 16 each: 160 both ways. The softmax
  weights do differ: heads x n x n = 8 against 4. So the answer is "the same".
- section 3, head 0, token 1's query [0.9, 0.1]: 0.9 x 1 + 0.1 x 0 = 0.9 against token 0's key [1, 0],
  0.9 x 0.9 + 0.1 x 0.1 = 0.82 against its own. Gap 0.08 / sqrt(2) = 0.0566, s(0.0566) = 0.5141 on
  token 0. Token 0's key stretched to [2, 0]: 1.8 against 0.82, gap 0.98 / sqrt(2) = 0.6930,
  s(0.6930) = 0.6666 on token 0: the weight rises. Printed as the sentences print a weight, 2 decimals:
  [0.51, 0.49] to [0.67, 0.33].
- section 4: head 1 ties at 0.5000 / 0.5000; the wide head's rows move from [0.6341, 0.3659] and
  [0.3870, 0.6130] to [0.5125, 0.4875] and [0.5100, 0.4900]; head 0 does not move. To 2 decimals: [0.50, 0.50];
  [0.63, 0.37] and [0.39, 0.61] to [0.51, 0.49] and [0.51, 0.49] (0.5125 is s(0.05) = 0.512497...).
- cross-attention with the causal mask on: token 0's query in head 0 [1, 0] against the context's keys
  [1, 0], [0, 1], [0.9, 0.1] scores 1, 0, 0.9; / sqrt(2), exp: 2.0281, 1, 1.8896 of 4.9177, so
  [0.4124, 0.2033, 0.3843], printed [0.41, 0.20, 0.38]: every context token is read (the page applies no mask
  across sequences).
- section 6, per token, 2 bytes a number, keys and values: Llama-2-7B 2 x 32 layers x 32 kv heads x
  128 x 2 = 524,288 B = 512 KiB; Llama-3-70B 2 x 80 x 8 x 128 x 2 = 327,680 B = 320 KiB: the 7B's is bigger.
- section 9 at 1,000 distractors, head 0: a distractor scores 0, so in units of its weight (e^0 = 1) token 0
  weighs e^(8/sqrt2) = 286.2 and the query itself e^(4/sqrt2) = 16.9; token 0 keeps
  286.25 / (286.25 + 16.92 + 1000) = 0.2197, printed 0.22; the wide head 0.0073 and head 1
  1 / (1 + e^sqrt2 + 1000 e^(2 sqrt2)) = 5.9e-05, printed with 2 significant digits under 0.01: 0.000059
  (tests/unit/test_competition.py works out all three heads).
"""

import math
import re
from html.parser import HTMLParser

import pytest

from figures import questions
from page import dom

# Section 8's question is answered from the build-time training run, which build.py trains and caches:
# wait for the session's build instead of training it a second time beside it (see tests/conftest.py).
pytestmark = pytest.mark.usefixtures("built_site")

# --- test data ---------------------------------------------------------------

ANSWERS = {"recipe": "same", "worked": "up", "exercise": "head-1-wide", "cross": "all", "sharing": "small",
           "prompts": "fifth"}
EXPECTED = {
    "recipe": ["64 parameters", "160 multiply-adds", "8 weights against 4"],
    "worked": ["scores 0.9 against token 0's key", "only 0.82 against its own", "key scores 1.8",
               "from [0.51, 0.49] to [0.67, 0.33]"],
    "exercise": ["both rows become [0.50, 0.50]", "from [0.63, 0.37] and [0.39, 0.61] to [0.51, 0.49] and [0.51, 0.49]"],
    "cross": ["[0.41, 0.20, 0.38]", "every context token gets a share"],
    "sharing": ["2 \u00d7 32 layers \u00d7 32 key/value heads \u00d7 width 128 \u00d7 2 bytes = 512.0 KiB",
                "2 \u00d7 80 layers \u00d7 8 key/value heads \u00d7 width 128 \u00d7 2 bytes = 320.0 KiB"],
    "prompts": ["token 0 then weighs 286.2 and the query itself 16.9", "286.2 + 16.9 + 1,000 units",
                "token 0 keeps 0.22 of it", "the wide head keeps 0.0073 and head 1 0.000059."],
}
# What would give each answer away, as the prose or a figure's caption would print it. None of it may be
# visible between the question and the next heading before Check (the tables of a figure print their
# numbers one per cell, so a bracketed row or a sentence is what a giveaway looks like).
GIVEAWAYS = {
    "recipe": ["the same as one head of width 4", "2 weight tables of 2 × 2 instead of 1"],
    "worked": ["[0.6666, 0.3334]", "0.6666"],  # not [0.67, 0.33]: head 1's own row of the worked example prints so
    "exercise": ["[0.5, 0.5]", "[0.50, 0.50]", "[0.5125, 0.4875]", "[0.51, 0.49]", "not one of its weights"],
    "cross": ["does not apply", "[0.4124, 0.2033, 0.3843]", "[0.41, 0.20, 0.38]"],
    "sharing": ["512.0 KiB", "320.0 KiB"],
    "prompts": ["286.2", "though not forever", "head 0 keeps"],  # head 0's lead, its fate, the live sentence
    "trained": ["induction score falls to", "with layer 0 switched off", "'s induction score falls from"],
    "text": ["0.0029", "not 2xm"],  # p with layer 1 head 2 off, and what its guesses write then
}


# --- tests -------------------------------------------------------------------

@pytest.mark.parametrize("qid", questions.QUESTIONS)
def test_every_question_has_its_answer_among_its_options_and_a_verdict_for_each(qid):
    q = questions.answers()[qid]  # an answer and verdicts computed at build time (section 8's) are computed here
    values = [value for value, _ in questions.QUESTIONS[qid].options]
    assert q["answer"] in values and sorted(q["verdicts"]) == sorted(values) and len(set(values)) == len(values)
    assert q["verdicts"][q["answer"]].startswith("Right")
    assert all(not q["verdicts"][v].startswith("Right") for v in values if v != q["answer"])


@pytest.mark.parametrize("qid, answer", ANSWERS.items())
def test_the_answer_mha_computes_is_the_hand_worked_one(qid, answer):
    assert questions.QUESTIONS[qid].answer == answer


def test_two_narrow_heads_cost_what_one_wide_head_costs_but_keep_twice_the_weights():
    many, one = questions.recipe_costs()
    assert (many.heads, many.head_width, one.heads, one.head_width) == (2, 2, 1, 4)
    for costs in (many, one):
        assert costs.parameters == 4 * 4 * 4 == 64
        assert costs.multiply_adds == 3 * 2 * 4 * 4 + 16 + 16 + 2 * 4 * 4 == 160
    assert many.scores == 2 * 2 * 2 * 2 == one.scores == 1 * 2 * 2 * 4
    assert (many.weights, one.weights) == (8, 4)


def test_token_1_weighs_token_0_above_itself_in_head_0_because_its_dot_product_is_larger():
    (on_0, on_self), weights = questions.worked_head_0()
    assert on_0 == pytest.approx(0.9) and on_self == pytest.approx(0.82)
    on_token_0 = 1 / (1 + math.exp(-(0.9 - 0.82) / math.sqrt(2)))  # a two-key softmax is a logistic of the gap
    assert weights == pytest.approx([on_token_0, 1 - on_token_0], abs=1e-12)
    assert f"{on_token_0:.4f}" == "0.5141"


def test_the_exercise_moves_head_1_and_the_wide_head_only():
    assert questions.exercise_moved() == (False, True, True)


def test_a_stretched_key_of_the_same_direction_takes_more_of_token_1s_weight():
    (on_stretched, on_self), weights = questions.worked_head_0(questions.stretched_tokens())
    assert on_stretched == pytest.approx(1.8) and on_self == pytest.approx(0.82)
    on_token_0 = 1 / (1 + math.exp(-(1.8 - 0.82) / math.sqrt(2)))
    assert weights == pytest.approx([on_token_0, 1 - on_token_0], abs=1e-12) and f"{on_token_0:.4f}" == "0.6666"


def test_cross_attention_reads_every_context_token_with_the_causal_mask_on():
    e = [math.exp(1 / math.sqrt(2)), 1.0, math.exp(0.9 / math.sqrt(2))]
    assert questions.cross_row() == pytest.approx([x / sum(e) for x in e], abs=1e-12)


def test_llama_2_7b_keeps_more_cache_per_token_than_llama_3_70b():
    (small, small_bill), (big, big_bill) = questions.sharing_models()
    assert (small.name, small.layers, small.kv_heads, small.head_width) == ("Llama-2-7B", 32, 32, 128)
    assert (big.name, big.layers, big.kv_heads, big.head_width) == ("Llama-3-70B", 80, 8, 128)
    assert small_bill.per_token == 2 * 32 * 32 * 128 * 2 == 512 * 1024
    assert big_bill.per_token == 2 * 80 * 8 * 128 * 2 == 320 * 1024
    assert questions.QUESTIONS["sharing"].prompt.startswith("Llama-3-70B has about 10 times the parameters")


@pytest.mark.parametrize("qid", questions.QUESTIONS)
def test_the_prerendered_question_holds_no_spoiler(qid):
    html = dom.to_html(questions.question(qid))
    answers = questions.answers()[qid]
    assert answers["explanation"] not in html
    assert not any(verdict in html for verdict in answers["verdicts"].values())
    assert html.count('type="radio"') == len(questions.QUESTIONS[qid].options)


@pytest.mark.parametrize("qid, words", EXPECTED.items())
def test_explanations_print_the_hand_worked_numbers(qid, words):
    explanation = questions.answers()[qid]["explanation"]
    for word in words:
        assert word in explanation, (qid, word, explanation)


class ShownText(HTMLParser):
    """The text of a page, less what sits inside an element with the hidden attribute."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self, text):
        super().__init__()
        self.stack, self.parts = [], []  # stack: one bool per open element, True if it is hidden
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append("hidden" in dict(attrs))

    def handle_endtag(self, tag):
        if tag not in self.VOID and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if not any(self.stack):
            self.parts.append(data)

    def text(self):
        return re.sub(r"\s+", " ", " ".join(self.parts)).strip()


def under(page, qid):
    """The built page from question qid to the next heading (or the section's end)."""
    start = page.index(f'id="q-{qid}"')
    rest = page[start:]
    return rest[:re.search(r"<h[23][ >]|</section>", rest).start()]


def test_shown_text_leaves_out_what_is_hidden():
    text = ShownText('<p>a <input type="radio"> b</p><div data-after="q" hidden><p>c <br> d</p></div><p>e</p>').text()
    assert text == "a b e"


@pytest.mark.parametrize("qid, giveaways", GIVEAWAYS.items())
def test_nothing_shown_under_a_question_gives_its_answer_away_until_check(built_site, qid, giveaways):
    region = under((built_site / "index.html").read_text(), qid)
    shown = ShownText(region).text()
    for giveaway in giveaways:
        assert giveaway not in shown, (qid, giveaway)


def test_section_2s_counts_are_under_its_question_and_wait_for_check(built_site):
    """The one case where the answer stays on the page, hidden: the cost figure and its prose."""
    region = under((built_site / "index.html").read_text(), "recipe")
    everything = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", region))
    assert all(giveaway in everything for giveaway in GIVEAWAYS["recipe"])


def test_what_waits_for_a_check_names_a_question_and_is_hidden_until_then(built_site):
    page = (built_site / "index.html").read_text()
    marks = re.findall(r'<[a-z]+ [^>]*data-(after|before)="([a-z0-9-]+)"[^>]*>', page)
    # section 2's cost line and its note; section 4's last paragraphs; section 6's table of published models;
    # section 8's sentence on each earlier head switched off; section 10's table of the chart's numbers, its
    # paragraphs on the leads and its note (head 0's line and row wait through competition.css, keyed on that
    # table's hidden)
    assert {qid for _, qid in marks} == {"recipe", "exercise", "sharing", "trained", "prompts"}
    for tag in re.findall(r'<[a-z]+ [^>]*data-(?:after|before)="[a-z0-9-]+"[^>]*>', page):
        hidden = re.search(r"\shidden(\s|>|=)", tag) is not None
        assert hidden == ("data-after" in tag), tag
    for qid in {qid for _, qid in marks}:
        assert f'data-question="{qid}"' in page


def test_section_9s_question_is_answered_from_a_numpy_forward_pass():
    """Seed 0, the default text, cut after 'ai: sent k7q': p of '2xm' is 0.39 with every head on. Of the heads
    whose role is induction (1.0, 1.2, 1.3), switching off 1.2 lowers it most, to 0.0029: under a tenth, though
    its measured cost to copying on average is 24%."""
    import numpy as np
    import mha.text_lesson as lesson
    from text_reference import encode, forward, shipped

    data = shipped(0)
    prompt, end = lesson.DEFAULT_PROMPT[:-3], lesson.DEFAULT_PROMPT[-3:]
    assert prompt.endswith("ai: sent k7q") and end == "2xm"

    def p(off=()):
        logits, _ = forward(data, encode(data, [prompt + end[:-1]]), off)
        probs = np.exp(logits[0] - logits[0].max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        return float(np.prod([probs[len(prompt) - 1 + i, data["vocab"].index(c)] for i, c in enumerate(end)]))

    inducers = [(layer, head) for layer, head, role in data["measurements"]["roles"] if role == "induction"]
    assert inducers == [(1, 0), (1, 2), (1, 3)]
    lowest = min(inducers, key=lambda name: p([name]))
    name, on, off, average = questions.text_heads()
    assert name == lowest == (1, 2)
    assert on == pytest.approx(p(), rel=1e-5) and off == pytest.approx(p([lowest]), rel=1e-5)
    assert off / on < 0.1 and questions.QUESTIONS["text"].answer() == "collapses"
    assert average == pytest.approx(0.244, abs=0.001)  # 1 - unseen with 1.2 off / unseen, from the measurements
    said = questions.answers()["text"]["explanation"]
    greedy = []
    for off_heads in ((), [lowest]):  # greedy decoding in numpy: each next character the likeliest, fed back in
        text = prompt
        for _ in range(3):
            logits, _ = forward(data, encode(data, [text]), off_heads)
            text += data["vocab"][int(np.argmax(logits[0, -1]))]
        greedy.append(text[len(prompt):].replace(" ", "\u2423"))
    assert greedy[0] == "2xm" and not any(a == b for a, b in zip(greedy[1], "2xm"))
    assert said.startswith(f"It falls from {on:.2f} to {off:.4f}, and its guesses write {greedy[1]}, not 2xm: 0 of 3 "
                           f"characters of this id, where without layer 1 head 2 the model loses 24% of its copying")
