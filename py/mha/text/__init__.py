"""A tiny character-level language model, trained by scripts/train_text_model.py, read in pure Python.

    model = mha.text.load()                               # seed DEFAULT_SEED; load(1), load(2): the others
    reading = mha.text.read(model, 'get a7x2k9\\n{"id":"a7x2k9"}', off=[(0, 1)])
    reading.guess, reading.probability, reading.heads     # per position, per head
    mha.text.extend(model, reading, "more")               # the KV cache: only the new rows
    mha.text.writes(reading, position)                    # each head's direct write into that guess

Two attention-only layers of four heads on a residual stream of width 64, context 128 characters, one
model a seed in SEEDS (the shape and vocabulary are read from model-SEED.json, which also carries what
measure() found). Text is lower-cased; anything else outside
the vocabulary, an empty text or one longer than the context is a ValueError (parse_text).
"""

from .model import DEFAULT_SEED, SEEDS, TextModel, from_data, load, parse_off, parse_seed, parse_text, sinusoids
from .reading import Reading, extend, read, top_writes, writes
from .experiments import Continuation, Greedy, continuation_probability, greedy
from .measure import (HALF, LITTLE, PROBES, ROLE_LIFT, ROLE_MIN, bigram_bits, bits_per_character, close_probability,
                      copy_accuracy, cost, dissociation, head_scores, induction_positions, measure, probe_keys, roles)

__all__ = (
    "DEFAULT_SEED", "SEEDS", "TextModel", "from_data", "load", "parse_off", "parse_seed", "parse_text", "sinusoids",
    "Reading", "extend", "read", "top_writes", "writes",
    "Continuation", "Greedy", "continuation_probability", "greedy",
    "HALF", "LITTLE", "PROBES", "ROLE_LIFT", "ROLE_MIN", "bigram_bits", "bits_per_character", "close_probability",
    "copy_accuracy", "cost", "dissociation",
    "head_scores", "induction_positions", "measure", "probe_keys", "roles",
)
