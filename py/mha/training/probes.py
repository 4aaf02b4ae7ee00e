"""Probes of a trained model: accuracy, each head's role, ablation, and predict() for the page.

Every score is a mean over the held-out set unless sequences are given.
"""

from ..softmax import softmax
from .gradients import cross_entropy
from .model import argmax, forward, forward_each
from .task import LENGTH, VOCAB, first_copy_position, held_out, pinned_positions


def evaluate(params, sequences=None, ablate=()):
    """(mean cross-entropy, accuracy) over the pinned positions of sequences, a list of (tokens, n).

    Accuracy: the fraction of pinned positions p where the largest logit is tokens[p + 1].
    ablate: (layer, head) pairs whose output is zeroed (see forward).
    """
    sequences = held_out() if sequences is None else sequences
    total = correct = count = 0
    for tokens, n in sequences:
        logits = forward(params, tokens, ablate).logits
        for p in pinned_positions(n):
            total += cross_entropy(logits[p], tokens[p + 1])[0]
            correct += argmax(logits[p]) == tokens[p + 1]
            count += 1
    return total / count, correct / count


def accuracy(params, sequences=None, ablate=()):
    """The fraction of pinned positions predicted right (held-out set by default)."""
    return evaluate(params, sequences, ablate)[1]


def previous_token_score(weights):
    """Mean over i = 1..n-1 of weights[i][i - 1]: how much each token attends to the one before it.

    weights: n x n softmax rows of one head. 1.0 for a perfect previous-token head.
    """
    return sum(weights[i][i - 1] for i in range(1, len(weights))) / (len(weights) - 1)


def even_rows(n):
    """n causal softmax rows that prefer nothing: row i puts 1 / (i + 1) on each of keys 0..i. What a score gives
    for a head whose weights are spread evenly, the baseline a trained head's score is read against."""
    return [[1 / (i + 1)] * (i + 1) for i in range(n)]


def induction_score(weights, n):
    """Mean over the pinned positions p of weights[p][p - n + 1]: attention from a token of the second
    copy to the token right after its first occurrence (the answer). 1.0 for a perfect induction head.

    weights: 12 x 12 softmax rows of one head; n: the segment's length.
    """
    pinned = pinned_positions(n)
    return sum(weights[p][first_copy_position(n, p) + 1] for p in pinned) / len(pinned)


def head_names(params):
    """Every head as (layer, head), in layer order: the order of every per-head list here."""
    return [(layer, head) for layer, heads in enumerate(params["layers"]) for head in range(len(heads))]


def head_scores(params, sequences=None, ablate=()):
    """Per head, in layer order: {"layer", "head", "previous_token", "induction"}, means over sequences.

    ablate: (layer, head) pairs switched off (see forward): the later layers' scores change with them.
    """
    return tally(params, sequences, [ablate])[0][0]


def tally(params, sequences, ablations, each=None):
    """[(head_scores(params, sequences, ablate), accuracy(params, sequences, ablate)) for ablate in ablations],
    from one forward_each per sequence (the ablations share the layers they agree on); sequences None: the
    held-out set. each(tokens, traces), if given, is shown every sequence's traces too (measure reads them)."""
    sequences = held_out() if sequences is None else sequences
    heads = head_names(params)
    sums = [{key: [0.0, 0.0] for key in heads} for _ in ablations]
    correct, count = [0] * len(ablations), 0
    for tokens, n in sequences:
        pinned = pinned_positions(n)
        count += len(pinned)
        traces = forward_each(params, tokens, ablations)
        if each is not None:
            each(tokens, traces)
        for i, trace in enumerate(traces):
            correct[i] += sum(argmax(trace.logits[p]) == tokens[p + 1] for p in pinned)
            for layer, head in heads:
                sums[i][layer, head][0] += previous_token_score(trace.weights[layer][head])
                sums[i][layer, head][1] += induction_score(trace.weights[layer][head], n)
    return [([{"layer": layer, "head": head, "previous_token": prev / len(sequences),
               "induction": ind / len(sequences)} for (layer, head), (prev, ind) in totals.items()], right / count)
            for totals, right in zip(sums, correct)]


def head_report(params, sequences=None):
    """head_scores() with each head's "accuracy_ablated": accuracy with that head's output zeroed."""
    names = head_names(params)
    (report, _), *alone = tally(params, sequences, [()] + [{name} for name in names])
    return [{**row, "accuracy_ablated": acc} for row, (_, acc) in zip(report, alone)]


def composition(params, sequences=None):
    """How each later head leans on the earlier ones: for every head of layer >= 1 and every head of an
    earlier layer, the later head's induction score with that earlier head switched off.

    Returns [{"layer", "head", "ablated": [layer, head], "induction"}, ...], later head by later head.
    """
    names = head_names(params)
    earlier = [name for name in names if name[0] < names[-1][0]]
    rows = []
    for ablated, (scores, _) in zip(earlier, tally(params, sequences, [{name} for name in earlier])):
        rows += [{"layer": s["layer"], "head": s["head"], "ablated": list(ablated), "induction": s["induction"]}
                 for s in scores if s["layer"] > ablated[0]]
    return sorted(rows, key=lambda r: (r["layer"], r["head"], r["ablated"]))


def check_ablate(params, ablate):
    """ablate as a frozenset of (layer, head) pairs of params' heads, or ValueError naming the one that is not."""
    names = head_names(params)
    for pair in ablate:
        if tuple(pair) not in names:
            raise ValueError(f"head {pair!r} does not exist: the heads are {names}")
    return frozenset(tuple(pair) for pair in ablate)


def predict(params, tokens, ablate=frozenset()):
    """Every head's pattern and the model's guesses, for one sequence of 1..12 tokens in 0..5.

    ablate: (layer, head) pairs switched off (see forward): the later layers' patterns change with them.
    Returns {"weights": [layer][head] n x n softmax rows, "probabilities": n rows of 6 (softmax of the
    logits: position i's distribution over token i + 1), "predictions": n ints (position i's guess
    for token i + 1)}. Raises ValueError for a sequence the model cannot read or a head it lacks.
    """
    if not 1 <= len(tokens) <= LENGTH:
        raise ValueError(f"a sequence has 1 to {LENGTH} tokens, got {len(tokens)}")
    for i, t in enumerate(tokens):
        if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t < VOCAB:
            raise ValueError(f"token {i} must be a whole number from 0 to {VOCAB - 1}, got {t!r}")
    trace = forward(params, tokens, check_ablate(params, ablate))
    return {"weights": trace.weights, "probabilities": [softmax(row) for row in trace.logits],
            "predictions": [argmax(row) for row in trace.logits]}
