"""The shipped character models: their files, their frozen weights, and the one check of a reader's text.

model-SEED.json, one for each of SEEDS (package data, read with importlib.resources, so they load the
same from the wheel in Pyodide), holds the vocabulary, the shape, the weights that
scripts/train_text_model.py trained from that seed (each matrix as its float32 bytes, little-endian,
in base64: the weights are those float32 numbers exactly), the held-out evaluation sets and what was
measured on them. The three seeds share one recipe. The residual stream of character i is

    x_i = embed[char_i] + position_i,   position_i[2j] = sin(i / 10000^(2j/d)), [2j+1] = cos(...)

(d = width; fixed sinusoids, not learned). Each layer adds its heads' attention to it; after the
last, logits = x @ readout + readout_bias (an untied readout: not embed^T).
"""

import array
import base64
import json
import math
import sys
from dataclasses import dataclass
from functools import cached_property
from importlib import resources

from ..projections import Projection, columns, matmul, matmul_columns

SEEDS = (0, 1, 2)  # the shipped models: one recipe, three seeds
DEFAULT_SEED = 0


@dataclass(frozen=True, eq=False)
class TextModel:
    """The model, frozen: vocab (a str, one character per token id), shape, weights as Projections.

    blocks: per layer (w_q, w_k, w_v, w_o), each width x width, applied as x @ W; head h reads
    slots [h * head_width, (h + 1) * head_width) of the queries, keys and values. measurements,
    about and evaluation are decoded afresh on each read, so no caller can change the model's own.
    """

    vocab: str
    context: int
    layers: int
    heads: int
    width: int
    embed: Projection       # len(vocab) x width
    positions: Projection   # context x width, the fixed sinusoids
    blocks: tuple           # layers x (w_q, w_k, w_v, w_o)
    readout: Projection     # width x len(vocab)
    readout_bias: tuple     # len(vocab)
    about_json: str = "{}"
    evaluation_json: str = "{}"
    measurements_json: str = "{}"

    @property
    def head_width(self):
        """width / heads: the slots each head reads."""
        return self.width // self.heads

    @property
    def measurements(self):
        """What scripts/train_text_model.py measured with mha.text.measure (a JSON-able dict)."""
        return json.loads(self.measurements_json)

    @property
    def about(self):
        """seed, steps, parameters, corpus recipe, training seconds: how the weights were made."""
        return json.loads(self.about_json)

    @property
    def evaluation(self):
        """The held-out sets, as text: trained and unseen prompt forms, repeats, docstrings, bigram counts."""
        return json.loads(self.evaluation_json)

    # The same matrices by their columns (mha.projections.columns), as matmul_columns takes them: transposed once,
    # on the first read, not on every character typed.
    @cached_property
    def block_columns(self):
        """Per layer: (w_q, w_k, w_v, w_o), each by its columns."""
        return tuple(tuple(packed_columns(w) for w in block) for block in self.blocks)

    @cached_property
    def first_projections(self):
        """Layer 0's (queries, keys, values) of every character and of every position, as two tables of
        (len(vocab) or context) rows of 3 x width: embed @ [w_q w_k w_v] and positions @ [w_q w_k w_v]. Layer 0
        reads x_i = embed[char_i] + position_i, so x_i @ W is one row of each added: a character typed reads two
        rows instead of multiplying three matrices (computed once, on the first read)."""
        w_q, w_k, w_v, _ = self.block_columns[0]
        both = w_q + w_k + w_v  # 3 x width columns
        return tuple(tuple(map(tuple, matmul_columns(table, both))) for table in (self.embed, self.positions))

    @cached_property
    def first_readout(self):
        """The readout of every character and of every position, as two tables of (len(vocab) or context) rows of
        len(vocab): embed @ readout and positions @ readout, the part of the logits that x_i's embed and position
        make (mha.text.reading's step 4; computed once, on the first read)."""
        readout = columns(self.readout)
        return tuple(tuple(map(tuple, matmul_columns(table, readout))) for table in (self.embed, self.positions))

    @cached_property
    def head_readout_columns(self):
        """[layer][head]: the head's rows of w_o times the readout (head_width x len(vocab)), by its len(vocab)
        columns: what one unit of the head's output adds to each logit, straight (mha.text.writes)."""
        hw = self.head_width
        return tuple(tuple(packed_columns(matmul(w_o[head * hw:(head + 1) * hw], self.readout))
                           for head in range(self.heads))
                     for _, _, _, w_o in self.blocks)

    @property
    def names(self):
        """Every head as (layer, head), layer by layer."""
        return [(layer, head) for layer in range(self.layers) for head in range(self.heads)]


def packed_columns(w):
    """columns(w), each column's floats made anew one after another, so a column read by a dot product lies
    together in memory, not a row's length apart as the rows' own floats do (a character typed reads some 25,000 of
    them, from caches that the page's drawing and its experiment have emptied since the last key)."""
    return tuple(tuple(array.array("d", column).tolist()) for column in columns(w))


def sinusoids(context, width):
    """context x width fixed positions: [i][2j] = sin(i / 10000^(2j / width)), [i][2j + 1] = cos of the same."""
    rows = []
    for i in range(context):
        row = []
        for j in range(0, width, 2):
            angle = i / 10000 ** (j / width)
            row += [math.sin(angle), math.cos(angle)]
        rows.append(row[:width])
    return Projection(rows)


def unpack(entry):
    """A matrix as the trainer packs it, {"shape": [rows, columns], "float32": base64 of its little-endian
    float32 bytes, row by row}, as a list of rows of floats (each float32 exactly)."""
    values = array.array("f", base64.b64decode(entry["float32"]))
    if sys.byteorder == "big":
        values.byteswap()
    rows, columns = entry["shape"]
    if len(values) != rows * columns:
        raise ValueError(f"a packed matrix holds {len(values)} numbers, not {rows} x {columns}")
    return [values[r * columns:(r + 1) * columns].tolist() for r in range(rows)]


def from_data(data):
    """A TextModel from a model file's decoded object (what the trainer writes)."""
    config, weights = data["config"], data["weights"]
    width, heads = config["width"], config["heads"]
    if width % heads:
        raise ValueError(f"width {width} is not divisible by {heads} heads")
    blocks = tuple(tuple(Projection(unpack(block[name])) for name in ("w_q", "w_k", "w_v", "w_o"))
                   for block in weights["layers"])
    return TextModel(vocab=data["vocab"], context=config["context"], layers=len(blocks), heads=heads, width=width,
                     embed=Projection(unpack(weights["embed"])), positions=sinusoids(config["context"], width),
                     blocks=blocks, readout=Projection(unpack(weights["readout"])),
                     readout_bias=tuple(unpack(weights["readout_bias"])[0]),
                     about_json=json.dumps(data.get("about", {})),
                     evaluation_json=json.dumps(data.get("evaluation", {})),
                     measurements_json=json.dumps(data.get("measurements", {})))


def parse_seed(seed):
    """seed as one of SEEDS, or ValueError listing them."""
    if isinstance(seed, bool) or seed not in SEEDS:
        raise ValueError(f"no model was shipped for seed {seed!r}: the seeds are "
                         f"{', '.join(str(s) for s in SEEDS)}")
    return seed


def file_name(seed):
    return f"model-{seed}.json"


def load(seed=DEFAULT_SEED):
    """The shipped model of that seed (py/mha/text/model-SEED.json), read through importlib.resources."""
    name = file_name(parse_seed(seed))
    return from_data(json.loads(resources.files(__package__).joinpath(name).read_text(encoding="utf-8")))


def parse_text(model, text):
    """text lower-cased, as the model reads it, or ValueError naming what is wrong.

    Upper case becomes lower case (the vocabulary has none); any other character outside the
    vocabulary is named with its position, counted from 0 as the model's positions are. An empty
    text, or one longer than the context, is refused with its length.
    """
    if not isinstance(text, str):
        raise ValueError(f"the text must be a string, got {type(text).__name__}")
    if not text:
        raise ValueError("the text is empty: type at least one character")
    lowered = []
    for i, char in enumerate(text):
        low = char.lower()
        if len(low) != 1 or low not in model.vocab:
            raise ValueError(f"{char!r} (position {i}) is not in the model's {len(model.vocab)} characters")
        lowered.append(low)
    if len(text) > model.context:
        raise ValueError(f"{len(text):,} characters is longer than the model's context of {model.context}")
    return "".join(lowered)


def parse_off(model, off):
    """off as a frozenset of (layer, head) pairs of the model's heads, or ValueError naming the one it lacks."""
    names = model.names
    pairs = set()
    for pair in off:
        try:
            layer, head = pair
        except (TypeError, ValueError):
            raise ValueError(f"a head is a (layer, head) pair, got {pair!r}") from None
        if (layer, head) not in names:
            raise ValueError(f"head {layer}.{head} does not exist: the model has layers 0-{model.layers - 1}, "
                             f"heads 0-{model.heads - 1} in each")
        pairs.add((layer, head))
    return frozenset(pairs)
