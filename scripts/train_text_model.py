"""Train mha.text's character models with numpy and write py/mha/text/model-SEED.json (issue 43).

    python3 scripts/train_text_model.py --seed 0            # the full run for one seed
    python3 scripts/train_text_model.py --steps 300 --out /tmp/m.json --no-measure

The model: characters -> embed + fixed sinusoidal positions -> LAYERS attention-only layers of
HEADS heads (causal, no biases, no MLP, no LayerNorm) on the residual stream -> an untied readout
with a bias. AdamW, batch 16. The context grows in STAGES (32, then 64, then 128 characters): the
positions are fixed sinusoids, so what a head learned at 32 still means the same at 128, and the
short stages cost a fraction of a long one. Each batch row is one of KINDS, drawn by the stage's mix:
dense copies (random characters in which earlier runs are written again, at every distance the
window allows), standard-library docstrings, docstrings with a random id written twice in them,
and generated agent transcripts (a spec, a tool's result, a reply) in TRAINED_FORMS. The prompt
forms in UNSEEN_FORMS and every tenth docstring never reach training. One BLAS thread, float64:
a rerun from the seed gives the same weights.
"""

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # before numpy loads: one thread, one order of sums

import argparse  # noqa: E402
import base64  # noqa: E402
import functools  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TEXT = ROOT / "py" / "mha" / "text"

# Printable ASCII without upper case (lower-cased before reading) and without \ ^ ` | ~.
VOCAB = "\n !\"#$%&'()*+,-./0123456789:;<=>?@[]_abcdefghijklmnopqrstuvwxyz{}"
ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789"
CONFIG = {"width": 64, "layers": 2, "heads": 4, "context": 128}
# (context, steps, mix of KINDS): the context grows; copying forms at 32 on copies alone (bench/NOTES.md)
STAGES = ((32, 8000, (1.0, 0.0, 0.0, 0.0)), (64, 4000, (0.6, 0.2, 0.1, 0.1)), (128, 8000, (0.4, 0.25, 0.1, 0.25)))
BATCH, LR, WARMUP, BETAS, WEIGHT_DECAY, EPS = 16, 3e-3, 300, (0.9, 0.999), 0.01, 1e-8
KINDS = ("copies", "docs", "docs_ids", "transcripts")
MIX = (0.4, 0.25, 0.1, 0.25)  # the shares of KINDS in a stage given without its own (--steps, --stages)
RUN = (3, 16)  # a dense copy's run, in characters
ID_LENGTH = 6  # the evaluation's ids; training's are 4-9 characters
MIN_DISTANCE = 64  # the evaluation's ids are written again this many characters or more after the first
EVAL_COUNTS = {"trained_forms": 20, "unseen_forms": 20, "repeats": 120, "brackets": 200}
DOCSTRING_CHARACTERS = 6000  # held-out docstring text kept in the file

# Agent transcripts: a spec line with an id, a tool's result (filler: a docstring line), a reply that repeats the
# id. {fill} is a stretch of docstring text: training's from training docstrings, evaluation's from held-out ones,
# long enough that the reply's id is MIN_DISTANCE or more characters after the spec's.
TRAINED_FORMS = (
    'user: where is order {id}?\ntool: {fill}\nai: order {id} is',
    'spec: fetch("{id}")\n{{"log":"{fill}"}}\nreply: fetched {id}',
    'call find({id})\nresult: {fill}\nanswer: {id} found',
    '{{"user":"{id}","note":"{fill}"}}\nreply: {id} ok',
    'q: is {id} done?\ntool says: {fill}\na: {id} done',
    'lookup {id}\n> {fill}\n> {id}: shipped',
)
UNSEEN_FORMS = (  # kept out of training: other words, other punctuation
    'ticket {id} opened. {fill}. closed ticket {id}',
    '[{id}] saved; log=({fill}); id={id}',
    'task: {id}\nstdout: {fill}\necho {id}',
    'send {id} to queue <{fill}> got {id}',
    '{id}: new row\n# {fill}\nrow {id} added',
)
DOCSTRING_MODULES = ("json", "os", "re", "collections", "itertools", "functools", "string", "textwrap", "random",
                     "math", "pathlib", "datetime", "shutil", "argparse", "logging", "typing", "dataclasses",
                     "heapq", "bisect", "csv", "zipfile", "urllib.parse", "statistics", "fractions", "difflib",
                     "queue", "copy", "enum", "contextlib", "io", "glob", "fnmatch", "tempfile", "base64",
                     "calendar", "operator", "pprint", "inspect", "tarfile", "html", "email", "http.client",
                     "sqlite3", "subprocess", "threading", "asyncio", "unittest", "decimal", "hashlib", "socket",
                     "struct", "time", "types", "weakref", "xml.etree.ElementTree", "zlib", "gzip", "codecs",
                     "locale", "platform", "sys", "traceback", "warnings", "abc", "numbers", "shlex", "uuid")
HELD_OUT_EVERY = 10  # every tenth docstring is held out
OPENERS = {'"': '"', "(": ")", "[": "]", "{": "}"}  # the brackets probe: what closes each


# --- the corpus -------------------------------------------------------------------------------

def encode(text):
    """A str of vocabulary characters -> an int array of token ids."""
    return np.array([VOCAB.index(c) for c in text], dtype=np.int64)


def decode(tokens):
    return "".join(VOCAB[t] for t in tokens)


def clean(text):
    """Lower-cased, tabs as spaces, anything outside VOCAB dropped."""
    return "".join(c for c in text.lower().replace("\t", " ") if c in VOCAB)


@functools.cache
def docstrings():
    """(training text, held-out text): the docstrings of DOCSTRING_MODULES and their public names, cleaned."""
    import importlib
    docs, seen = [], set()
    for name in DOCSTRING_MODULES:
        module = importlib.import_module(name)
        objects = [module] + [getattr(module, attr) for attr in sorted(dir(module)) if not attr.startswith("_")]
        for obj in objects:
            if obj is not module and getattr(obj, "__module__", None) != module.__name__:
                continue
            doc = clean(inspect.getdoc(obj) or "")
            if len(doc) > 40 and doc not in seen:
                seen.add(doc)
                docs.append(doc)
    held = [d for i, d in enumerate(docs) if i % HELD_OUT_EVERY == 0]
    train = [d for i, d in enumerate(docs) if i % HELD_OUT_EVERY]
    return "\n\n".join(train), "\n\n".join(held)


def random_id(rng, length):
    return "".join(ID_CHARS[i] for i in rng.integers(0, len(ID_CHARS), length))


def copies(rng, length):
    """`length` random characters in which earlier runs of RUN characters are written again, from any distance:
    after a fresh start, each run is a copy of an earlier stretch (half the time) or fresh characters."""
    tokens = list(rng.integers(0, len(VOCAB), int(rng.integers(8, 24))))
    while len(tokens) < length:
        run = int(rng.integers(RUN[0], RUN[1] + 1))
        if rng.random() < 0.5:
            start = int(rng.integers(0, max(len(tokens) - run, 0) + 1))
            tokens += tokens[start:start + run]
        else:
            tokens += list(rng.integers(0, len(VOCAB), run))
    return np.array(tokens[:length], dtype=np.int64)


def fill(rng, docs, length):
    """`length` characters of docs from a random point, newlines as spaces (a tool's one-line result)."""
    start = int(rng.integers(0, len(docs) - length))
    return docs[start:start + length].replace("\n", " ")


def docs_with_id(rng, docs, length):
    """A docstring window with one random id written at two points, any distance apart."""
    ident = random_id(rng, int(rng.integers(4, 10)))
    text = fill(rng, docs, length).replace(" ", "\n", int(rng.integers(0, 3)))
    a, b = sorted(rng.choice(length - len(ident), 2, replace=False))
    text = text[:a] + " " + ident + " " + text[a:b] + " " + ident + " " + text[b:]
    return encode(text[:length])


def transcript(rng, docs, length):
    """`length` characters of transcripts in TRAINED_FORMS with fresh ids and fills, from a random point."""
    text = ""
    while len(text) < 2 * length:
        form = TRAINED_FORMS[int(rng.integers(0, len(TRAINED_FORMS)))]
        text += form.format(id=random_id(rng, int(rng.integers(4, 10))),
                            fill=fill(rng, docs, int(rng.integers(8, 90)))) + "\n"
    start = int(rng.integers(0, len(text) - 2 * length + 1))
    return encode(text[start:start + length])


def batch(rng, docs, context, mix=MIX, size=BATCH):
    """size x (context + 1) token ids: inputs are [:, :-1], targets [:, 1:]."""
    rows = []
    for _ in range(size):
        kind = KINDS[int(rng.choice(len(KINDS), p=mix))]
        if kind == "copies":
            rows.append(copies(rng, context + 1))
        elif kind == "docs":
            rows.append(encode(fill(rng, docs, context + 1)) if rng.random() < 0.5 else
                        encode(docs[(s := int(rng.integers(0, len(docs) - context - 1))):s + context + 1]))
        elif kind == "docs_ids":
            rows.append(docs_with_id(rng, docs, context + 1))
        else:
            rows.append(transcript(rng, docs, context + 1))
    return np.stack(rows)


# --- the held-out sets --------------------------------------------------------------------------

def prompt(form, rng, held, context):
    """{"text", "first", "second", "length"}: form with a fresh ID_LENGTH id and a held-out fill as long as
    keeps the second copy MIN_DISTANCE or more after the first and the prompt within the context, cut at the end
    of the id's second copy."""
    ident = random_id(rng, ID_LENGTH)
    head, _, tail = form.partition("{id}")
    middle = tail.partition("{id}")[0]

    def unbrace(s):
        return s.replace("{{", "{").replace("}}", "}")
    bare = len(unbrace(middle.replace("{fill}", "")))
    size = int(rng.integers(max(MIN_DISTANCE - ID_LENGTH - bare, 8), context - len(unbrace(head)) - 2 * ID_LENGTH
                            - bare + 1))
    text = unbrace(head) + ident + unbrace(middle).replace("{fill}", fill(rng, held, size)) + ident
    first = len(unbrace(head))
    second = len(text) - ID_LENGTH
    assert second - first >= MIN_DISTANCE and len(text) <= context, (form, len(text))
    return {"text": text, "first": first, "second": second, "length": ID_LENGTH}


def repeat(rng, length):
    """A held-out induction probe, as section 8's task has it: `length` random characters with a run of 4-16
    distinct characters, found nowhere else in the window, written twice, the copies at least length / 8 apart:
    {"text", "first", "second", "length"}."""
    run, gap = int(rng.integers(4, min(16, length // 4) + 1)), length // 8
    chars = rng.permutation(len(VOCAB))
    tokens = rng.choice(chars[run:], length)
    first = int(rng.integers(0, length - 2 * run - gap + 1))
    second = int(rng.integers(first + run + gap, length - run + 1))
    tokens[first:first + run] = chars[:run]
    tokens[second:second + run] = chars[:run]
    return {"text": decode(tokens), "first": first, "second": second, "length": run}


def evaluation(seed, held, bigram_counts, context):
    """The held-out sets, as text: drawn from their own stream of the seed, never from training's."""
    rng = np.random.default_rng([seed, 1])
    held_fill = held[DOCSTRING_CHARACTERS:]  # the fills: held-out docstrings, not the bits-per-character text
    return {
        "trained_forms": [prompt(TRAINED_FORMS[i % len(TRAINED_FORMS)], rng, held_fill, context)
                          for i in range(EVAL_COUNTS["trained_forms"] * len(TRAINED_FORMS))],
        "unseen_forms": [prompt(UNSEEN_FORMS[i % len(UNSEEN_FORMS)], rng, held_fill, context)
                         for i in range(EVAL_COUNTS["unseen_forms"] * len(UNSEEN_FORMS))],
        "repeats": [repeat(rng, context) for _ in range(EVAL_COUNTS["repeats"])],
        "docstrings": held[:DOCSTRING_CHARACTERS],
        "bigram_counts": bigram_counts,
    }


def bigrams(text):
    """counts[a][b]: how often character b follows a in text."""
    counts = np.zeros((len(VOCAB), len(VOCAB)), dtype=np.int64)
    ids = encode(text)
    np.add.at(counts, (ids[:-1], ids[1:]), 1)
    return counts.tolist()


# --- the model --------------------------------------------------------------------------------

@functools.cache
def sinusoids(context, width):
    """[i][2j] = sin(i / 10000^(2j / width)), [i][2j + 1] = cos of the same."""
    angle = np.arange(context)[:, None] / 10000 ** (np.arange(0, width, 2)[None, :] / width)
    positions = np.zeros((context, width))
    positions[:, 0::2], positions[:, 1::2] = np.sin(angle), np.cos(angle)
    return positions


@functools.cache
def causal(context):
    return np.tril(np.ones((context, context), dtype=bool))


def init(rng, vocab, width, layers):
    """torch's defaults: embed N(0, 1); every linear map and the bias uniform in +-1/sqrt(width)."""
    bound = 1 / math.sqrt(width)
    params = {"embed": rng.standard_normal((vocab, width))}
    for layer in range(layers):
        for name in ("w_q", "w_k", "w_v", "w_o"):
            params[f"{layer}.{name}"] = rng.uniform(-bound, bound, (width, width))
    params["readout"] = rng.uniform(-bound, bound, (width, vocab))
    params["readout_bias"] = rng.uniform(-bound, bound, vocab)
    return params


def forward(params, tokens, targets, heads, off=()):
    """(mean cross-entropy over every position, what backward needs). tokens, targets: B x T ids."""
    B, T = tokens.shape
    width = params["embed"].shape[1]
    hw, layers = width // heads, sum(1 for key in params if key.endswith(".w_q"))
    x = params["embed"][tokens] + sinusoids(T, width)[None]
    mask = causal(T)
    saved = []
    for layer in range(layers):
        def split(m):  # (B, T, d) -> (B, heads, T, hw)
            return m.reshape(B, T, heads, hw).transpose(0, 2, 1, 3)
        q, k, v = (split(x @ params[f"{layer}.{name}"]) for name in ("w_q", "w_k", "w_v"))
        scores = np.where(mask, q @ k.transpose(0, 1, 3, 2) / math.sqrt(hw), -np.inf)
        weights = np.exp(scores - scores.max(-1, keepdims=True))
        weights /= weights.sum(-1, keepdims=True)
        keep = np.array([0.0 if (layer, h) in off else 1.0 for h in range(heads)])[None, :, None, None]
        out = (weights @ v) * keep                                   # (B, heads, T, hw)
        concat = out.transpose(0, 2, 1, 3).reshape(B, T, width)      # (B, T, d)
        saved.append((x, q, k, v, weights, keep, concat))
        x = x + concat @ params[f"{layer}.w_o"]
    logits = x @ params["readout"] + params["readout_bias"]
    logits -= logits.max(-1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(-1, keepdims=True)
    loss = None if targets is None else -np.log(np.take_along_axis(probs, targets[..., None], -1)).mean()
    return loss, (tokens, targets, x, probs, saved, heads)


def backward(params, cache):
    """d loss / d each parameter, by hand: the chain rule through readout, each layer in reverse, embed."""
    tokens, targets, x, probs, saved, heads = cache
    B, T = tokens.shape
    width = x.shape[-1]
    hw = width // heads
    grads = {}
    dlogits = probs.copy()
    np.put_along_axis(dlogits, targets[..., None], np.take_along_axis(dlogits, targets[..., None], -1) - 1, -1)
    dlogits /= B * T
    grads["readout"] = x.reshape(-1, width).T @ dlogits.reshape(-1, dlogits.shape[-1])
    grads["readout_bias"] = dlogits.sum((0, 1))
    dx = dlogits @ params["readout"].T
    for layer in reversed(range(len(saved))):
        x_in, q, k, v, weights, keep, concat = saved[layer]
        grads[f"{layer}.w_o"] = concat.reshape(-1, width).T @ dx.reshape(-1, width)
        dout = (dx @ params[f"{layer}.w_o"].T).reshape(B, T, heads, hw).transpose(0, 2, 1, 3) * keep
        dweights = dout @ v.transpose(0, 1, 3, 2)
        dv = weights.transpose(0, 1, 3, 2) @ dout
        dscores = weights * (dweights - (dweights * weights).sum(-1, keepdims=True)) / math.sqrt(hw)
        dq, dk = dscores @ k, dscores.transpose(0, 1, 3, 2) @ q
        for name, d in (("w_q", dq), ("w_k", dk), ("w_v", dv)):
            d = d.transpose(0, 2, 1, 3).reshape(B, T, width)         # (B, heads, T, hw) -> (B, T, d)
            grads[f"{layer}.{name}"] = x_in.reshape(-1, width).T @ d.reshape(-1, width)
            dx = dx + d @ params[f"{layer}.{name}"].T
    onehot = np.zeros((B * T, params["embed"].shape[0]))
    onehot[np.arange(B * T), tokens.reshape(-1)] = 1.0
    grads["embed"] = onehot.T @ dx.reshape(-1, width)  # each row: the sum of dx where that character is
    return grads


def learning_rate(step, steps, lr=LR):
    """A linear warm-up over WARMUP steps, then a cosine from lr down to lr / 20 at the last step."""
    if step < WARMUP:
        return lr * (step + 1) / WARMUP
    done = (step - WARMUP) / max(steps - WARMUP, 1)
    return lr * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * done)))


def quick_copy(params, heads, prompts):
    """The share of ids' characters 2 on that the model guesses right at their second copy (numpy, for the log)."""
    right = total = 0
    for item in prompts:
        tokens = encode(item["text"])[None]
        probs = forward(params, tokens, None, heads)[1][3][0]
        guess = probs.argmax(-1)
        for k in range(1, item["length"]):
            right += guess[item["second"] + k - 1] == tokens[0, item["second"] + k]
            total += 1
    return right / total


def train(seed=0, stages=STAGES, config=CONFIG, log=None, mix=MIX, lr=LR):
    """(params, losses): AdamW as torch does it (decay p by lr * weight_decay, then the Adam step)."""
    rng = np.random.default_rng([seed, 0])
    train_docs, held = docstrings()
    params = init(rng, len(VOCAB), config["width"], config["layers"])
    moments = {key: (np.zeros_like(p), np.zeros_like(p)) for key, p in params.items()}
    losses, steps = [], sum(stage[1] for stage in stages)
    probe = None
    if log:
        sets = evaluation(seed, held, [], config["context"])
        probe = sets["unseen_forms"][:40]
    step = 0
    for context, count, *stage_mix in stages:
        for _ in range(count):
            data = batch(rng, train_docs, context, stage_mix[0] if stage_mix else mix)
            loss, cache = forward(params, data[:, :-1], data[:, 1:], config["heads"])
            grads = backward(params, cache)
            rate, t = learning_rate(step, steps, lr), step + 1
            for key, p in params.items():
                m, v = moments[key]
                m *= BETAS[0]
                m += (1 - BETAS[0]) * grads[key]
                v *= BETAS[1]
                v += (1 - BETAS[1]) * grads[key] ** 2
                p *= 1 - rate * WEIGHT_DECAY
                p -= rate * (m / (1 - BETAS[0] ** t)) / (np.sqrt(v / (1 - BETAS[1] ** t)) + EPS)
            losses.append(float(loss))
            step += 1
            if log and step % 500 == 0:
                log(f"step {step} (context {context}): loss {np.mean(losses[-500:]):.3f}, unseen copy "
                    f"{quick_copy(params, config['heads'], probe):.1%}")
    return params, losses


# --- the file ---------------------------------------------------------------------------------

def packed(m):
    """A matrix (or a vector, as one row) as the model's file holds it: its float32 bytes, little-endian, row by
    row, in base64 (mha.text.model.unpack reads it back)."""
    m = np.atleast_2d(m)
    return {"shape": list(m.shape), "float32": base64.b64encode(m.astype("<f4").tobytes()).decode("ascii")}


def as_shipped(params):
    """The weights as the file holds them (float32), back in float64: what mha reads, and what is measured."""
    return {key: p.astype(np.float32).astype(np.float64) for key, p in params.items()}


def loss_curve(losses, steps):
    """(every, the mean loss over each `every` steps): about 30 points, whatever the run's length."""
    every = max(steps // 30, 1)
    return every, [round(float(np.mean(losses[i:i + every])), 4) for i in range(0, len(losses), every)]


def model_data(params, curve, seed, stages, seconds, config=CONFIG, mix=MIX, cpu_seconds=None, lr=LR):
    """The model file's object, without measurements: vocabulary, shape, weights, how they were made, held-out sets."""
    train_docs, held = docstrings()
    count = sum(p.size for p in params.values())
    steps = sum(stage[1] for stage in stages)
    return {
        "vocab": VOCAB,
        "config": dict(config),
        "about": {"seed": seed, "steps": steps, "parameters": int(count), "training_seconds": round(seconds, 1),
                  "training_cpu_seconds": None if cpu_seconds is None else round(cpu_seconds, 1),
                  "python": platform.python_version(), "numpy": np.__version__,
                  "trainer": "scripts/train_text_model.py",
                  "loss_every": curve[0], "loss_curve": curve[1],
                  "corpus": {"stages": [{"context": c, "steps": n, "mix": list(m[0] if m else mix)}
                                        for c, n, *m in stages],
                             "kinds": list(KINDS),
                             "docstring_modules": list(DOCSTRING_MODULES),
                             "docstring_characters": len(train_docs),
                             "trained_forms": list(TRAINED_FORMS), "unseen_forms": list(UNSEEN_FORMS),
                             "optimizer": f"AdamW lr {lr} (warm-up {WARMUP} steps, cosine to lr / 20), betas "
                                          f"{BETAS}, weight decay {WEIGHT_DECAY}, batch {BATCH}"}},
        "weights": {"embed": packed(params["embed"]),
                    "layers": [{name: packed(params[f"{layer}.{name}"]) for name in ("w_q", "w_k", "w_v", "w_o")}
                               for layer in range(config["layers"])],
                    "readout": packed(params["readout"]),
                    "readout_bias": packed(params["readout_bias"])},
        "evaluation": evaluation(seed, held, bigrams(train_docs), config["context"]),
    }


def parse_stages(text):
    """'32:8000:1/0/0/0,64:3000,128:6000' -> ((32, 8000, (1.0, 0.0, 0.0, 0.0)), (64, 3000), (128, 6000)): each
    stage's context, steps and, if given, its own mix of KINDS."""
    stages = []
    for part in text.split(","):
        context, steps, *mix = part.split(":")
        stage = (int(context), int(steps))
        if mix:
            shares = tuple(float(x) for x in mix[0].split("/"))
            if len(shares) != len(KINDS) or abs(sum(shares) - 1) > 1e-9:
                raise argparse.ArgumentTypeError(f"a stage's mix is {len(KINDS)} shares that sum to 1: {mix[0]}")
            stage += (shares,)
        stages.append(stage)
    return tuple(stages)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stages", type=parse_stages, default=STAGES, metavar="CONTEXT:STEPS,...")
    parser.add_argument("--steps", type=int, help="one stage of this many steps at the full context (a short check)")
    parser.add_argument("--out", type=Path, help="default: py/mha/text/model-SEED.json")
    parser.add_argument("--width", type=int, default=CONFIG["width"])
    parser.add_argument("--heads", type=int, default=CONFIG["heads"])
    parser.add_argument("--context", type=int, default=CONFIG["context"])
    parser.add_argument("--lr", type=float, default=LR)
    parser.add_argument("--mix", type=float, nargs=len(KINDS), default=MIX, metavar=tuple(k.upper() for k in KINDS))
    parser.add_argument("--no-measure", action="store_true", help="skip the measurements")
    parser.add_argument("--remeasure", type=Path, metavar="MODEL", help="measure a model file again; no training")
    args = parser.parse_args(argv)
    if args.remeasure:
        return measure_file(args.remeasure)
    out = args.out or TEXT / f"model-{args.seed}.json"
    config = {**CONFIG, "width": args.width, "heads": args.heads, "context": args.context}
    stages = ((config["context"], args.steps),) if args.steps else args.stages
    start, cpu_start = time.perf_counter(), time.process_time()  # wall time swings with the machine's load
    params, losses = train(args.seed, stages, config, log=lambda line: print(line, flush=True), mix=args.mix,
                           lr=args.lr)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    steps = sum(stage[1] for stage in stages)
    print(f"trained {steps} steps in {seconds:.1f} s ({cpu_seconds:.0f} s of CPU)", flush=True)
    data = model_data(params, loss_curve(losses, steps), args.seed, stages, seconds, config, args.mix, cpu_seconds,
                      args.lr)
    out.write_text(json.dumps(data, separators=(",", ":")) + "\n")  # the weights are kept if measuring fails
    if not args.no_measure:
        measure_file(out)
    print(f"wrote {out} ({out.stat().st_size / 1000:.0f} KB)")


def unpacked(entry):
    """packed's inverse, as float64: the matrix the file holds (a vector comes back as one row)."""
    flat = np.frombuffer(base64.b64decode(entry["float32"]), dtype="<f4").astype(np.float64)
    return flat.reshape(entry["shape"])


def file_params(data):
    """The trainer's params dict from a model file's weights."""
    weights = data["weights"]
    params = {"embed": unpacked(weights["embed"]), "readout": unpacked(weights["readout"]),
              "readout_bias": unpacked(weights["readout_bias"])[0]}
    for layer, names in enumerate(weights["layers"]):
        for name, entry in names.items():
            params[f"{layer}.{name}"] = unpacked(entry)
    return params


def measure_file(path):
    """Measure a model file with mha.text.measure (numpy's forward pass as its reader) and write them into it."""
    sys.path.insert(0, str(ROOT / "py"))
    import mha.text
    import mha.text_lesson
    data = json.loads(path.read_text())
    begin = time.perf_counter()
    model, reader = mha.text.from_data(data), numpy_reader(file_params(data), data["config"])
    data["measurements"] = mha.text.measure(model, reader=reader)
    data["measurements"]["competition"] = mha.text_lesson.competition(model, reader)._asdict()
    data["measurements"]["typical"] = mha.text_lesson.typical(model, reader=reader)._asdict()
    print(f"measured in {time.perf_counter() - begin:.1f} s", flush=True)
    print(json.dumps({key: data["measurements"][key] for key in ("tasks", "bits_per_character", "roles", "competition",
                                                                 "dissociation")}))
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n")


def numpy_reader(params, config):
    """mha.text.measure's reader, in numpy: text, off -> (probabilities, weights[layer][head]) as nested lists.
    The same forward pass as mha.text.read (tests/unit check the two agree), only faster."""
    def reader(text, off=()):
        tokens = encode(text)[None]
        _, (_, _, _, probs, saved, _) = forward(params, tokens, None, config["heads"], off)
        return probs[0], [s[4][0] for s in saved]
    return reader


if __name__ == "__main__":
    main()
