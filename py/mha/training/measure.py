"""What the page shows of a trained model, measured once: accuracy and scores for sets of heads switched off,
and where a head looks when the letter has no earlier twin.

Full precision everywhere: a number is rounded only where a person reads it.
"""

from .model import forward
from .probes import head_names, tally

# The page's probe presets: FACEACBA, both earlier A's followed by C (an exact repeat); FACEADBA, one A followed by C,
# one by D (a near-duplicate that diverges)
REPEAT = (5, 0, 2, 4, 0, 2, 1, 0)
NEAR = (5, 0, 2, 4, 0, 3, 1, 0)


def ablation_sets(names):
    """Every set of heads, by bit mask over names: mask m switches off names[i] when bit i is set."""
    return [{names[i] for i in range(len(names)) if m >> i & 1} for m in range(1 << len(names))]


def single_masks(names):
    """Mask 0 (every head on) and each head alone off: {0, 1, 2, 4, ...}."""
    return {0, *(1 << i for i in range(len(names)))}


def mask_of(names, off):
    """The bit mask over names of the heads in off."""
    return sum(1 << i for i, name in enumerate(names) if tuple(name) in off)


def fresh_positions(tokens):
    """The positions i >= 1 whose token has no earlier twin: where an induction head has nothing to copy."""
    return [i for i in range(1, len(tokens)) if tokens[i] not in tokens[:i]]


def first_token_weight(weights, tokens):
    """(sum of weights[i][0], sum of 1 / (i + 1), count) over fresh_positions(tokens): what the head puts on the
    first token there, and what even weights over 0..i would put."""
    fresh = fresh_positions(tokens)
    return sum(weights[i][0] for i in fresh), sum(1 / (i + 1) for i in fresh), len(fresh)


SINK = 0.5  # an induction head that puts at least this on the first token, where it has nothing to copy, parks there


def first_token_rows(params, name, tokens):
    """[(i, head name's weight on the first token in row i)] for i in fresh_positions(tokens): row by row what
    first_token_weight adds up, since an average can hide rows that park there (SINK or more) and rows that do not."""
    weights = forward(params, tokens).weights[name[0]][name[1]]
    return [(i, weights[i][0]) for i in fresh_positions(tokens)]


def measure(params, sequences=None, masks=None):
    """{"heads": [[layer, head], ...], "ablated": [accuracy with mask m's heads off, for every m],
     "scores_off": [[[previous_token, induction] per head] for every m], "scores": scores_off[0],
     "first_token": [[mean weight on the first token where the letter has no earlier twin, the same for even
     weights] per head]}, on the held-out set (or sequences).

    The accuracy and the scores are probes.tally's (one forward_each per sequence runs its masks together).
    masks: the masks to measure (None: all 2^heads), mask 0 among them; the others' entries are None."""
    names = head_names(params)
    sets = ablation_sets(names)
    wanted = [m for m in range(len(sets)) if masks is None or m in masks]
    first = [[0.0, 0.0, 0] for _ in names]

    def add_first(tokens, traces):  # every head on: mask 0's patterns
        weights = traces[wanted.index(0)].weights
        for i, (layer, head) in enumerate(names):
            first[i] = [a + b for a, b in zip(first[i], first_token_weight(weights[layer][head], tokens))]

    found = dict(zip(wanted, tally(params, sequences, [sets[m] for m in wanted], add_first)))
    ablated = [found[m][1] if m in found else None for m in range(len(sets))]
    scores_off = [[[row["previous_token"], row["induction"]] for row in found[m][0]] if m in found else None
                  for m in range(len(sets))]
    return {"heads": [list(name) for name in names], "ablated": ablated, "scores_off": scores_off,
            "scores": scores_off[0], "first_token": [[w / k, even / k] if k else [0.0, 0.0] for w, even, k in first]}
