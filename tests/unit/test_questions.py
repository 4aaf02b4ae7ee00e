"""Predict, then check (figures/questions.py): well-formed questions, no spoiler in the page, explanations
whose numbers are the hand-worked ones.

Worked by hand (the worked example and exercise are derived in tests/conftest.py):
- head 1, token 0: scores 1 (itself) and 0 (token 1), gap 1/sqrt(2) = 0.7071 -> 0.6698 / 0.3302;
- exercise: head 1 ties at 0.5000 / 0.5000; the wide head's row 0 moves from 0.6341 to 0.5125;
- cross-attention: 2 asking tokens x 3 context tokens;
- Llama-3-8B: 8 of 32 key/value heads -> 1.00 GiB instead of 4.00 GiB at 8192 tokens, 75% saved;
- section 9 at 1,000 distractors, head 0: a distractor scores 0, so in units of its weight (e^0 = 1) token 0
  weighs e^(8/sqrt2) = 286.2 and the query itself e^(4/sqrt2) = 16.9; token 0 keeps
  286.25 / (286.25 + 16.92 + 1000) = 0.2197 (tests/unit/test_competition.py works out all three heads).
"""

import pytest

from figures import questions
from page import dom

EXPECTED = {
    "worked": ["0.6698 on itself", "0.3302 on token 1"],
    "exercise": ["0.5000 / 0.5000", "from 0.6341 to 0.5125"],
    "cross": ["2 \u00d7 3"],
    "sharing": ["1.00 GiB instead of 4.00 GiB", "75% saved"],
    "prompts": ["token 0 then weighs 286.2 and the query itself 16.9", "286.2 + 16.9 + 1,000 units",
                "token 0 keeps 0.2197", "the wide head keeps 0.0073 and head 1 0.0001"],
}


@pytest.mark.parametrize("qid", questions.QUESTIONS)
def test_every_question_has_its_answer_among_its_options_and_a_verdict_for_each(qid):
    q = questions.QUESTIONS[qid]
    values = [value for value, _ in q.options]
    assert q.answer in values and sorted(q.verdicts) == sorted(values) and len(set(values)) == len(values)
    assert q.verdicts[q.answer].startswith("Right")
    assert all(not q.verdicts[v].startswith("Right") for v in values if v != q.answer)


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
