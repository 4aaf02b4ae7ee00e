"""The figure state, its one gate, and the pure transitions a reader's edits make.

A state is a plain dict (default_state() lists its keys). compute(state) is
the gate: an edit, a shared link (fragment.decode) and a code cell's show()
all pass through it, and a state it rejects is never kept or drawn. Every
transition below takes a state and returns a new one, without looking at the
DOM, so each is unit-tested in CPython; app/main.py only reads a field, calls a
transition, and redraws. Nothing here draws, and no math is done here: mha
computes.
"""

from typing import Callable, NamedTuple

import mha
from page.dom import slot_range

DEFAULT_CONTEXT = mha.LESSON_CONTEXT  # section 7's second sequence
DEFAULT_MODEL = "Llama-3-8B"  # the KV-cache calculator's first model (section 6)
DEFAULT_SEQ_LEN = 8192
DEFAULT_BYTES = 2             # bf16: two bytes per cached number
MAX_SEED = 2**32 - 1
MODEL_NAMES = tuple(shape.name for shape in mha.MODEL_SHAPES)
CUSTOM_MODEL = "your own shape"  # the calculator's name for numbers that match no published model
MAX_DISTRACTORS = 1000  # the competition (section 9): only the query's one row is computed, 1002 keys at most
GRIDS = {"tokens": "token", "context": "context token"}  # the editable sequences: state key -> label
MAX_COST_SEQ_LEN = 10_000_000  # section 2's sequence length for mha.COST_MODEL: above this is a typo, not a model
FIGURE_KEYS = ("tokens", "heads", "kv_heads", "causal", "projections", "seed", "context", "distractors",
               "cost_seq_len")


class KV(NamedTuple):
    """The KV-cache calculator's inputs: a model shape, a sequence length, bytes per number, a batch."""

    shape: mha.ModelShape
    seq_len: int = DEFAULT_SEQ_LEN
    bytes_per_value: float = DEFAULT_BYTES
    batch: int = 1  # sequences (conversations) served at once, each with its own cache


def model_shape(name):
    """The mha.MODEL_SHAPES entry called name."""
    return next(shape for shape in mha.MODEL_SHAPES if shape.name == name)


def default_state():
    """The lesson's worked example (section 3) with identity projections; what a fresh page shows.

    "blend" is section 1's own three tokens (mha.BLEND_TOKENS): no link carries them, no other
    figure reads them, and only section 1's reset puts them back. "digits" is how many decimals the live
    figure's tables print (2, or 4 once the reader asks): a way of reading, so no link or reset changes it.
    """
    return {"tokens": [list(row) for row in mha.LESSON_TOKENS], "heads": mha.LESSON_HEADS,
            "kv_heads": mha.LESSON_HEADS, "causal": False, "projections": "identity", "seed": 0,
            "context": None, "distractors": 0, "kv": KV(model_shape(DEFAULT_MODEL)),
            "cost_seq_len": model_shape(mha.COST_MODEL).context, "blend": [list(row) for row in mha.BLEND_TOKENS],
            "digits": 2}


# --- the gate ----------------------------------------------------------------------

class View(NamedTuple):
    """Everything the head figures show for one state, all computed by mha."""

    result: object        # mha.MultiHeadResult, self-attention over the tokens
    wide: list            # the one wide head's weights
    cross: object = None  # mha.MultiHeadResult with keys and values from the context, or None
    cross_wide: list = None
    projected: object = None  # the Projected it was computed with (None: identity slices), for the next edit
    blend: object = None      # section 1's Blend (compute_blend) of state["blend"]

    def shape(self):
        """Tables and their sizes: equal shapes mean a redraw can patch numbers in place."""
        cross = None if self.cross is None else (len(self.cross.weights), len(self.cross.weights[0][0]))
        return (len(self.result.weights), len(self.result.weights[0]), self.result.width,
                self.result.kv_head_of, cross)


def compute(state, before=None):
    """The View of a state; ValueError (from mha) if the state cannot be drawn. THE gate.

    before: the View drawn until now, if any; its projected rows, and its Blend, are reused where they still hold.
    """
    check_sharing(state)
    kept = None if before is None else before.blend
    blend = kept if kept is not None and kept.tokens == state["blend"] else compute_blend(state["blend"])
    rows = projected(state, before)
    weights = {} if rows is None else {**rows.weights, "project": rows}
    tokens, heads, kv, causal = state["tokens"], state["heads"], state["kv_heads"], state["causal"]
    result = mha.multi_head_attention(tokens, heads, kv_heads=kv, causal=causal, **weights)
    wide = mha.multi_head_attention(tokens, 1, causal=causal).weights[0]  # the one wide head
    if state["context"] is None:
        return View(result, wide, projected=rows, blend=blend)
    context = state["context"]  # no causal=: mha refuses a causal mask across two sequences
    cross = mha.multi_head_attention(tokens, heads, kv_heads=kv, context=context, **weights)
    cross_wide = mha.multi_head_attention(tokens, 1, context=context).weights[0]
    return View(result, wide, cross, cross_wide, rows, blend)


class Blend(NamedTuple):
    """Section 1's picture for its three tokens, the last one asking under a causal mask: all from mha."""

    tokens: list   # 3 lists of 4 floats; the last is the query (the causal mask lets it see all three)
    heads: object  # mha.MultiHeadResult, mha.BLEND_HEADS heads of width 2
    wide: object   # mha.MultiHeadResult, the one wide head of width 4
    parts: list    # per key, the query's dot product with it in each head's slots (mha.slice_scores)
    totals: list   # per key, q . k over all four slots: what the wide head scores, before its 1/sqrt(4)


def compute_blend(tokens):
    """Section 1's Blend; ValueError (from mha) if it cannot be drawn. Its gate, as compute() is the head figures'."""
    heads = mha.multi_head_attention(tokens, mha.BLEND_HEADS, causal=True)
    wide = mha.multi_head_attention(tokens, 1, causal=True)
    heads.concat, wide.outputs  # computed when first read: read now, so an overflow raises here, not in a draw
    parts, totals = mha.slice_scores(tokens[-1], tokens, heads.head_slots)
    return Blend([list(row) for row in tokens], heads, wide, parts, totals)


def check_sharing(state):
    """Shared key/value heads need projections: ValueError for identity slices with kv_heads < heads.

    With identity slices, key/value head 0 is query head 0's slots, so query head 1 of
    the same group would score its own slots against another head's: numbers, no meaning.
    """
    heads, kv_heads = state["heads"], state["kv_heads"]
    if state["projections"] == "random" or kv_heads >= heads or heads % kv_heads:
        return
    mine, theirs = (slot_range(*slots) for slots in mha.head_slots(len(state["tokens"][0]), heads)[1::-1])
    raise ValueError(f"shared key/value heads need random projections: with identity slices, query head 1 "
                     f"would score its {mine} against keys made of query head 0's {theirs}")


class Projected:
    """A state's random projections and the rows they have projected, carried by its View to the next edit.

    A reader's edit changes one token, so the next View projects only that token again (a 64 x 64
    projection costs milliseconds in the browser), and a value typed back (a deleted digit) is found
    too. Passed to mha.multi_head_attention as project=. rows is shared by the Views of one key
    (sizes and seed: the weights), and keeps at most MAX_ROWS.
    """

    MAX_ROWS = 4096

    def __init__(self, key, weights, rows=None):
        self.key = key          # (width, heads, kv_heads, seed): what mha.random_projections was given
        self.weights = weights  # w_q, w_k, w_v, w_o (mha.Projection)
        self.rows = {} if rows is None else rows  # (weight name, input row) -> output row

    def __call__(self, vectors, w):
        name = next(n for n, m in self.weights.items() if m is w)
        keys = [(name, tuple(x)) for x in vectors]
        found = [self.rows.get(k) for k in keys]
        missing = [i for i, row in enumerate(found) if row is None]
        if missing:  # one product for every row not projected before
            if len(self.rows) > self.MAX_ROWS:
                self.rows.clear()
            for i, row in zip(missing, mha.matmul([vectors[i] for i in missing], w)):
                found[i] = self.rows[keys[i]] = tuple(row)
        return [list(row) for row in found]  # fresh lists: mha's caller may change them


def reads_slices(state):
    """Whether each head reads its own slots of the tokens (identity slices), not a projection of all of them."""
    return state["projections"] != "random"


def projected(state, before=None):
    """None for identity slices, else the state's Projected: the weights and rows of `before` (a View) when
    its sizes and seed are the same, else mha.random_projections for them and no rows yet."""
    if reads_slices(state):
        return None
    key = (len(state["tokens"][0]), state["heads"], state["kv_heads"], state["seed"])
    kept = None if before is None else before.projected
    if kept is not None and kept.key == key:
        return Projected(key, kept.weights, kept.rows)
    return Projected(key, mha.random_projections(key[0], key[1], kv_heads=key[2], seed=key[3]))


# --- transitions: state -> new state (compute() decides whether it is kept) -----------

def changed(state, **changes):
    """A copy of state with some settings replaced (seed, causal, projections, kv_heads, ...)."""
    unknown = set(changes) - set(state)
    if unknown:
        raise ValueError(f"the figure has no setting {sorted(unknown)[0]!r}")
    return {**state, **changes}


def resized(rows, width):
    """Each row padded with zeros or cut to width."""
    return [(list(row) + [0.0] * width)[:width] for row in rows]


def with_tokens(state, tokens):
    """New tokens, maybe of a new width: heads fitted to it (mha.fit_heads), the context resized."""
    width = len(tokens[0])
    heads, kv_heads = mha.fit_heads(width, state["heads"], state["kv_heads"])
    context = state["context"]
    return changed(state, tokens=[list(row) for row in tokens], heads=heads, kv_heads=kv_heads,
                   context=None if context is None else resized(context, width))


def with_width(state, width):
    """Every token cut or zero-padded to width."""
    return with_tokens(state, resized(state["tokens"], width))


def with_heads(state, heads):
    """A new query-head count; key/value heads follow (plain stays plain, shared stays shared)."""
    heads, kv_heads = mha.fit_heads(len(state["tokens"][0]), state["heads"], state["kv_heads"], wanted=heads)
    return changed(state, heads=heads, kv_heads=kv_heads)


def with_number(state, key, t, s, value):
    """One slot of one token of a grid (key: 'tokens', 'context' or section 1's 'blend') set to value."""
    rows = [list(row) for row in state[key]]
    rows[t][s] = value
    return changed(state, **{key: rows})


def with_blend_reset(state):
    """Section 1's three tokens back to mha.BLEND_TOKENS; nothing else changes."""
    return changed(state, blend=[list(row) for row in mha.BLEND_TOKENS])


def button_rules(count):
    """(add disabled, remove disabled, note) for a grid of count tokens: one rule, drawn and live."""
    full = count >= mha.MAX_TOKENS
    return full, count <= 1, f"{mha.MAX_TOKENS} is the most this page draws." if full else ""


def with_token_added(state, key):
    """A zero token appended to a grid; ValueError at mha.MAX_TOKENS."""
    rows = state[key]
    if button_rules(len(rows))[0]:
        raise ValueError(f"at most {mha.MAX_TOKENS} {GRIDS[key]}s")
    return changed(state, **{key: [list(row) for row in rows] + [[0.0] * len(rows[0])]})


def with_token_removed(state, key):
    """The last token of a grid removed; ValueError at one token."""
    rows = state[key]
    if button_rules(len(rows))[1]:
        raise ValueError(f"a {GRIDS[key]} grid keeps at least one {GRIDS[key]}")
    return changed(state, **{key: [list(row) for row in rows[:-1]]})


def with_cross(state, on):
    """Cross-attention on (the default context, at the tokens' width) or off."""
    return changed(state, context=resized(DEFAULT_CONTEXT, len(state["tokens"][0])) if on else None)


def with_preset(state, tokens):
    """The lesson's tokens at width 4 with its 2 heads, plain multi-head; other options stay."""
    return changed(with_tokens(state, tokens), heads=mha.LESSON_HEADS, kv_heads=mha.LESSON_HEADS)


def lesson_shape(state):
    """True if the width, heads and key/value heads are the worked example's: 4 wide, 2 plain heads."""
    return (len(state["tokens"][0]), state["heads"], state["kv_heads"]) == (
        len(mha.LESSON_TOKENS[0]), mha.LESSON_HEADS, mha.LESSON_HEADS)


def with_lesson_shape(state):
    """Section 3's way back from sizes set elsewhere: width 4 (tokens cut or padded), 2 plain heads; all else stays."""
    return changed(with_width(state, len(mha.LESSON_TOKENS[0])), heads=mha.LESSON_HEADS, kv_heads=mha.LESSON_HEADS)


EXERCISE_PROJECTIONS = ("identity", "random")  # section 4's two exercises


def with_exercise(state, projections):
    """Section 4's exercise as two states: (the lesson's tokens, the same with token 1's time stamp = token 0's).

    Both have 2 plain heads, no causal mask and `projections`: "identity" slices (the first
    exercise) or "random" projections with the state's own seed (the second). Drawing the first,
    then the second, marks exactly what the edit moved. The context, distractors and calculator stay.
    """
    if projections not in EXERCISE_PROJECTIONS:
        raise ValueError(f"the exercise uses identity or random projections, not {projections!r}")
    settings = {"causal": False, "projections": projections}
    return (changed(with_preset(state, mha.LESSON_TOKENS), **settings),
            changed(with_preset(state, mha.EXERCISE_TOKENS), **settings))


def with_shown_tokens(state, tokens):
    """A code cell's show(tokens): any list of equal-length number lists, read like typed fields.

    Raises ValueError with the sentence the cell prints (before anything changes).
    """
    if not isinstance(tokens, (list, tuple)) or not all(isinstance(row, (list, tuple)) for row in tokens):
        raise ValueError("show() needs a list of token vectors, e.g. [[1.0, 0.0, 0.0, 1.0], [0.9, 0.1, 1.0, 0.0]]")
    return with_tokens(state, mha.parse_tokens([[str(x) for x in row] for row in tokens]))


def with_link(state, fields):
    """The figure settings a shared link decoded (fragment.decode) over the current state."""
    return changed(state, **{key: fields[key] for key in FIGURE_KEYS})


def parse_distractors(text):
    """The distractor count from a field's text: a whole number in [0, MAX_DISTRACTORS]."""
    return mha.parse_count(text, "distractors", 0, MAX_DISTRACTORS)


def parse_cost_seq_len(text):
    """Section 2's sequence length (one layer of mha.COST_MODEL) from a field's text: a whole number in
    [1, MAX_COST_SEQ_LEN]."""
    return mha.parse_count(text, "sequence length", 1, MAX_COST_SEQ_LEN)


def parse_seed(text):
    """The projection seed from a field's text: a whole number in [0, MAX_SEED]."""
    return mha.parse_count(text, "seed", 0, MAX_SEED)


def with_model(state, name):
    """The KV calculator switched to a published model's shape (sequence length and bytes kept)."""
    return changed(state, kv=state["kv"]._replace(shape=model_shape(name)))


def with_own_shape(state):
    """The calculator's "your own shape": the numbers stay, the published model's name (and window) go."""
    return changed(state, kv=state["kv"]._replace(shape=mha.ModelShape(CUSTOM_MODEL, *state["kv"].shape.counts)))


def with_kv_fields(state, shape, seq_len, bytes_per_value, batch=1):
    """The KV calculator's fields as the reader typed them; counts equal to a model's keep that model.

    The model shown now wins a tie (Llama-3-8B, Llama-3.1-8B and Mistral-7B-v0.1 share one shape).
    """
    now = state["kv"].shape
    if now.name == CUSTOM_MODEL and now.counts == shape.counts:  # the reader's own shape stays theirs
        return changed(state, kv=KV(now, seq_len, bytes_per_value, batch))
    models = (now, *mha.MODEL_SHAPES)
    named = next((m for m in models if m.counts == shape.counts and m.name in MODEL_NAMES),
                 mha.ModelShape(CUSTOM_MODEL, *shape.counts))
    return changed(state, kv=KV(named, seq_len, bytes_per_value, batch))


def with_kv_heads(state, kv_heads):
    """Section 6's key/value heads; sharing them (fewer than the query heads) switches on random projections.

    See check_sharing: identity slices give a shared key/value head no meaning.
    """
    shared = kv_heads < state["heads"]
    return changed(state, kv_heads=kv_heads, projections="random" if shared else state["projections"])


def with_projections(state, name):
    """Identity slices or random projections; identity gives every query head its own key/value head again."""
    if name == "random":
        return changed(state, projections=name)
    return changed(state, projections=name, kv_heads=state["heads"])


# --- the settings a shared link carries -------------------------------------------------

class Linked(NamedTuple):
    """A figure setting in the URL fragment: its key there, its state field, how its text is read and written.

    fragment.py reads and writes every entry of LINKED; tokens (t), context (x) and heads (h) are its own.
    """

    key: str
    field: str
    parse: Callable   # the link's text -> the value, or ValueError with a sentence
    write: Callable = str


LINK_PROJECTIONS = {"id": "identity", "rand": "random"}  # the link's short words for the projections


def _choice(label, options):
    """A parser that accepts only the keys of options (and gives their values)."""
    def parse(text):
        if text not in options:
            raise ValueError(f"{label} must be one of {', '.join(sorted(options))}, got {text[:40]!r}")
        return options[text]
    return parse


LINKED = (  # in the link's order; 'kv' after 'h', so a link without 'kv' means plain multi-head
    Linked("kv", "kv_heads", lambda text: mha.parse_count(text, "key/value heads", 1, mha.MAX_WIDTH)),
    Linked("c", "causal", _choice("causal", {"0": False, "1": True}), lambda on: "1" if on else "0"),
    Linked("p", "projections", _choice("projections", LINK_PROJECTIONS),
           {name: short for short, name in LINK_PROJECTIONS.items()}.get),
    Linked("s", "seed", parse_seed),
    Linked("d", "distractors", parse_distractors),
    Linked("len", "cost_seq_len", parse_cost_seq_len),
)
