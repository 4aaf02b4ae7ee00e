"""Reading a text: the forward pass, with a KV cache so that typing at the end costs one row per head.

For each layer, with x the residual stream (n x width):

    1. project: q, k, v = x @ w_q, x @ w_k, x @ w_v, split into heads (n x head_width each); in layer 0,
       where x is embed + position, x @ W is embed @ W + position @ W, both tables multiplied once
    2. attend, per head: weights = softmax(q k^T / sqrt(head_width), causal mask), outputs = weights v
    3. concat the heads' outputs (a head switched off gives zeros) and mix: x <- x + concat @ w_o

then logits = x @ readout + readout_bias, and softmax(logits[i]) is the guess for character i + 1.
The model has nothing else (no MLP, no norm), so the last x is embed + position plus each head's
output through its rows of w_o, and its logits are the readout of each part added:

    logits = embed @ readout + position @ readout + sum over heads of the head's write + readout_bias

a head's write being its output @ its rows of w_o @ readout (writes()). So the last layer's step 3
is never taken: the two tables are multiplied once, and the writes are kept for the captions.
Causal: position i reads keys 0..i only, so the keys and values of earlier positions never change
when text is added. A Reading keeps them (the cache); extend() projects only the new characters
and attends from their rows alone.
"""

import operator
from dataclasses import dataclass

from ..attention import attention_weights, weighted_sum
from ..heads import merge_heads, split_heads
from ..projections import matmul_columns
from ..softmax import softmax
from .model import parse_off, parse_text


@dataclass(frozen=True, eq=False)
class Reading:
    """What the model made of a text, position by position (all tuples: a Reading cannot change).

    text: the lower-cased text; off: the (layer, head) pairs switched off; logits, probabilities:
    n rows of len(vocab); weights[layer][head][i]: position i's softmax row over positions 0..i
    (causal, so row i has i + 1 weights); keys, values [layer][head]: n rows of head_width (the cache);
    writes[layer][head]: n rows of len(vocab), what the head adds to the logits (writes(); zeros for an off head).
    """

    text: str
    off: frozenset
    vocab: str
    logits: tuple
    probabilities: tuple
    weights: tuple
    keys: tuple
    values: tuple
    writes: tuple

    @property
    def guess(self):
        """The most likely next character at each position (the first, on a tie)."""
        return [self.vocab[_argmax(row)] for row in self.probabilities]

    def guess_at(self, position):
        """(the most likely next character after position, its probability): guess and probability at one position."""
        row = self.probabilities[position]
        best = _argmax(row)
        return self.vocab[best], row[best]

    @property
    def probability(self):
        """The probability of each guess."""
        return [max(row) for row in self.probabilities]

    def distribution(self, position, top=5):
        """The `top` likeliest next characters after `position`, as (character, probability), likeliest first."""
        row = self.probabilities[position]
        order = sorted(range(len(row)), key=lambda t: (-row[t], t))[:top]
        return [(self.vocab[t], row[t]) for t in order]

    @property
    def heads(self):
        """One entry per head: {"layer", "head", "weights": rows (row i over positions 0..i), "causal": True}."""
        return [{"layer": layer, "head": head, "weights": [list(row) for row in rows], "causal": True}
                for layer, heads in enumerate(self.weights) for head, rows in enumerate(heads)]


def read(model, text, off=()):
    """The whole text from scratch; returns a Reading. off: (layer, head) pairs whose output is zeroed."""
    return _advance(model, None, parse_text(model, text), parse_off(model, off))


def extend(model, reading, more_text, off=()):
    """reading's text followed by more_text, reusing reading's keys and values: only the new rows are computed.

    With a different `off` than the reading's, the earlier positions' keys change too, so it reads the
    whole text again.
    """
    off = parse_off(model, off)
    text = parse_text(model, reading.text + more_text)
    if off != reading.off:
        return _advance(model, None, text, off)
    if text == reading.text:
        return reading
    return _advance(model, reading, text[len(reading.text):], off)


def _advance(model, earlier, more, off):
    """The Reading of earlier.text + more (earlier None: from scratch), for checked inputs."""
    start = len(earlier.text) if earlier else 0
    n = start + len(more)
    tokens = [model.vocab.index(char) for char in more]
    x = [[e + p for e, p in zip(model.embed[t], model.positions[start + i])] for i, t in enumerate(tokens)]
    # causal: new row i reads keys 0..start + i (one new row, a character typed, reads them all: no mask)
    mask = [[j <= start + i for j in range(n)] for i in range(len(more))] if len(more) > 1 else None
    fields = {"weights": [], "keys": [], "values": [], "writes": []}  # the Reading's: [layer][head], every row
    new_writes = []  # every head's writes of the new rows
    for layer, (w_q, w_k, w_v, w_o) in enumerate(model.block_columns):
        # 1. project the new rows only: (m, d) -> (heads, m, head_width)
        if layer == 0:  # x = embed + position, so x @ W = embed @ W + position @ W: two rows of tables made once
            embedded, placed = model.first_projections
            both = [[a + b for a, b in zip(embedded[t], placed[start + i])] for i, t in enumerate(tokens)]
            projected = ([row[k * model.width:(k + 1) * model.width] for row in both] for k in range(3))
        else:
            projected = (matmul_columns(x, w) for w in (w_q, w_k, w_v))
        queries, keys, values = (split_heads(rows, model.heads) for rows in projected)
        outputs = []
        for name in fields:
            fields[name].append([])
        for head in range(model.heads):
            head_keys = _kept(earlier, "keys", layer, head) + tuple(keys[head])
            head_values = _kept(earlier, "values", layer, head) + tuple(values[head])
            # 2. attend from the new rows to every key so far (m x n, causal)
            weights = attention_weights(queries[head], head_keys, mask)  # inputs checked: parse_text, the model's load
            out = weighted_sum(weights, head_values)
            if (layer, head) in off:  # the stream and the logits get zeros
                out = [[0.0] * len(row) for row in out]
                write = [[0.0] * len(model.vocab) for _ in out]
            else:  # the head's output through its rows of w_o and the readout: its direct share of the logits
                write = matmul_columns(out, model.head_readout_columns[layer][head])
            outputs.append(out)
            new_writes.append(write)
            fields["keys"][layer].append(head_keys)
            fields["values"][layer].append(head_values)
            for name, rows in (("weights", [row[:start + i + 1] for i, row in enumerate(weights)]), ("writes", write)):
                fields[name][layer].append(_kept(earlier, name, layer, head) + tuple(map(tuple, rows)))
        # 3. concat the heads (m, d) and add what w_o makes of them to the stream (not after the last layer: the
        # logits read its heads through their writes)
        if layer + 1 < model.layers:
            x = [[a + b for a, b in zip(row, mixed)] for row, mixed in zip(x, matmul_columns(merge_heads(outputs), w_o))]
    # 4. logits = embed @ readout + position @ readout + every head's write + readout_bias
    embedded, placed = model.first_readout
    logits = []
    for i, t in enumerate(tokens):
        row = [e + p + b for e, p, b in zip(embedded[t], placed[start + i], model.readout_bias)]
        for write in new_writes:
            row = list(map(operator.add, row, write[i]))
        logits.append(tuple(row))
    logits = tuple(logits)
    probabilities = tuple(tuple(softmax(list(row))) for row in logits)
    return Reading(text=(earlier.text if earlier else "") + more, off=off, vocab=model.vocab,
                   logits=(earlier.logits if earlier else ()) + logits,
                   probabilities=(earlier.probabilities if earlier else ()) + probabilities,
                   **{name: tuple(map(tuple, layers)) for name, layers in fields.items()})


def _kept(earlier, name, layer, head):
    """The rows the Reading `earlier` keeps in its field `name` for this head (none when reading from scratch)."""
    return getattr(earlier, name)[layer][head] if earlier else ()


def _argmax(row):
    """The index of the largest entry (the first, on a tie)."""
    return max(range(len(row)), key=row.__getitem__)


def writes(reading, position):
    """What each head writes straight into the guess at `position` (its direct effect on the logits), as the Reading
    keeps it (_advance's step 2):

        write[layer][head] = (weights[position] @ values) @ w_o[head's rows] @ readout     (len(vocab) numbers)

    the head's output there, through its block of w_o's rows (its share of step 3) and the readout (the last two
    multiplied once: model.head_readout_columns). A head that is off writes zeros. This leaves out what a layer-0
    head writes for layer 1 to read: only the direct path."""
    return [[list(rows[position]) for rows in heads] for heads in reading.writes]


def top_writes(model, reading, position):
    """{(layer, head): (the character whose logit the head's direct write at `position` raises most, that raise)},
    None for a head that is off."""
    result = {}
    for layer, row in enumerate(writes(reading, position)):
        for head, write in enumerate(row):
            best = _argmax(write)
            result[layer, head] = None if (layer, head) in reading.off else (model.vocab[best], write[best])
    return result
