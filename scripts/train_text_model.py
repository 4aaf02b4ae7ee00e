"""Train mha.text's character model with numpy and write py/mha/text/model.json (issue 27).

    python3 scripts/train_text_model.py                 # the full run: 30,000 steps, seed 0
    python3 scripts/train_text_model.py --steps 300 --out /tmp/m.json --no-measure

The model: characters -> embed + fixed sinusoidal positions -> LAYERS attention-only layers of
HEADS heads (causal, no biases, no MLP, no LayerNorm) on the residual stream -> an untied readout
with a bias. AdamW (torch's defaults but lr), batch 16, context 32. The corpus is built here from
the seed: phase 1 is repeated random strings (a run of 4-16 characters written twice anywhere in
the window); phase 2 mixes those (70%) with standard-library docstrings (15%) and generated agent
transcripts with random ids (15%), the learning rate falling on a cosine. The prompt forms in
UNSEEN_FORMS never reach training. One BLAS thread, float64: a rerun from the seed gives the same weights.
"""

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # before numpy loads: one thread, one order of sums

import argparse  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "py" / "mha" / "text" / "model.json"

# Printable ASCII without upper case (lower-cased before reading) and without \ ^ ` | ~.
VOCAB = "\n !\"#$%&'()*+,-./0123456789:;<=>?@[]_abcdefghijklmnopqrstuvwxyz{}"
ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789"
CONFIG = {"width": 32, "layers": 2, "heads": 2, "context": 32}
STEPS, BATCH, LR, BETAS, WEIGHT_DECAY, EPS = 30_000, 16, 1e-2, (0.9, 0.999), 0.01, 1e-8
RUN = (4, 16)  # the repeated run's length, in characters
MIX = (0.7, 0.15, 0.15)  # phase 2: repeats, docstrings, transcripts (50/25/25: 54-60% of unseen forms, bench/NOTES.md)
ID_LENGTH = 6  # the evaluation's ids; training's are 5-8 characters
EVAL_COUNTS = {"trained_forms": 40, "unseen_forms": 40, "repeats": 200}
DOCSTRING_CHARACTERS = 4000  # held-out docstring text kept in the file

# Agent transcripts: a user asks about an id, a tool is called with it and answers with it, the reply
# repeats it. Evaluation cuts each at the end of the id's second occurrence, which must fit the context.
TRAINED_FORMS = (
    'u: where is {id}?\na: {id} is here',
    'get {id}\n{{"id":"{id}","ok":true}}',
    'call find("{id}")\ntool: {id} found',
    '{{"user":"{id}"}}\nreply: {id} ok',
    'q: is {id} done?\nt: {id} done',
    'lookup {id}\n> {id}: shipped',
)
UNSEEN_FORMS = (  # kept out of training: other words, other punctuation, the id further back
    'ticket {id} closed. ref {id}',
    '[{id}] saved; id={id}',
    'id={id}\nstatus: ok\necho {id}',
    'send {id} to queue, got {id}',
    '{id}: new row\nrow {id} added',
)
DOCSTRING_MODULES = ("json", "os", "re", "collections", "itertools", "functools", "string", "textwrap", "random",
                     "math", "pathlib", "datetime", "shutil", "argparse", "logging", "typing", "dataclasses",
                     "heapq", "bisect", "csv", "zipfile", "urllib.parse", "statistics", "fractions", "difflib",
                     "queue", "copy", "enum", "contextlib", "io", "glob", "fnmatch", "tempfile", "base64",
                     "calendar", "operator", "pprint", "inspect", "tarfile", "html")
HELD_OUT_EVERY = 10  # every tenth docstring is held out


# --- the corpus -------------------------------------------------------------------------------

def encode(text):
    """A str of vocabulary characters -> an int array of token ids."""
    return np.array([VOCAB.index(c) for c in text], dtype=np.int64)


def clean(text):
    """Lower-cased, tabs as spaces, anything outside VOCAB dropped."""
    return "".join(c for c in text.lower().replace("\t", " ") if c in VOCAB)


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
    return "\n\n".join(train), "\n\n".join(held)[:DOCSTRING_CHARACTERS]


def random_id(rng, length):
    return "".join(ID_CHARS[i] for i in rng.integers(0, len(ID_CHARS), length))


def repeat(rng, length, distinct=False):
    """`length` random vocabulary characters with a run of RUN characters written twice anywhere:
    (tokens, first, second, run).

    distinct (the held-out probe's repeats, as section 8's task has them): the run's characters differ
    from each other and from every other character of the window, so each character of the second copy
    has one earlier occurrence, and "the character after it" is one position.
    """
    run = int(rng.integers(RUN[0], RUN[1] + 1))
    if distinct:
        chars = rng.permutation(len(VOCAB))
        tokens = rng.choice(chars[run:], length)  # the window: none of the run's characters
    else:
        tokens = rng.integers(0, len(VOCAB), length)
    first = int(rng.integers(0, length - 2 * run + 1))
    second = int(rng.integers(first + run, length - run + 1))
    if distinct:
        tokens[first:first + run] = chars[:run]
    tokens[second:second + run] = tokens[first:first + run]
    return tokens, first, second, run


def transcript(rng, length):
    """`length` characters of transcripts in TRAINED_FORMS with fresh ids, from a random point of the first."""
    text = ""
    while len(text) < 2 * length:
        form = TRAINED_FORMS[int(rng.integers(0, len(TRAINED_FORMS)))]
        text += form.format(id=random_id(rng, int(rng.integers(5, 9)))) + "\n"
    start = int(rng.integers(0, len(text) - 2 * length + 1)) if len(text) > 2 * length else 0
    return encode(text[start:start + length])


def window(rng, corpus, length):
    start = int(rng.integers(0, len(corpus) - length))
    return corpus[start:start + length]


def batch(rng, phase, docs, context=CONFIG["context"], size=BATCH, mix=MIX):
    """size x (context + 1) token ids: inputs are [:, :-1], targets [:, 1:]."""
    rows = []
    for _ in range(size):
        kind = 0 if phase == 1 else int(rng.choice(3, p=mix))
        if kind == 0:
            rows.append(repeat(rng, context + 1)[0])
        elif kind == 1:
            rows.append(window(rng, docs, context + 1))
        else:
            rows.append(transcript(rng, context + 1))
    return np.stack(rows)


def prompt(form, rng):
    """{"text", "first", "second", "length"}: form with a fresh ID_LENGTH id, cut at the end of its second copy."""
    ident = random_id(rng, ID_LENGTH)
    head, _, tail = form.partition("{id}")
    middle = tail.partition("{id}")[0]
    text = (head + ident + middle + ident).replace("{{", "{").replace("}}", "}")
    first = len(head.replace("{{", "{").replace("}}", "}"))
    second = len(text) - ID_LENGTH
    return {"text": text, "first": first, "second": second, "length": ID_LENGTH}


def evaluation(seed, held_docs, bigram_counts, context=CONFIG["context"]):
    """The held-out sets, as text: drawn from their own stream of the seed, never from training's."""
    rng = np.random.default_rng([seed, 1])
    sets = {"trained_forms": [prompt(TRAINED_FORMS[i % len(TRAINED_FORMS)], rng)
                              for i in range(EVAL_COUNTS["trained_forms"] * len(TRAINED_FORMS))],
            "unseen_forms": [prompt(UNSEEN_FORMS[i % len(UNSEEN_FORMS)], rng)
                             for i in range(EVAL_COUNTS["unseen_forms"] * len(UNSEEN_FORMS))],
            "repeats": []}
    for _ in range(EVAL_COUNTS["repeats"]):
        tokens, first, second, run = repeat(rng, context, distinct=True)
        sets["repeats"].append({"text": "".join(VOCAB[t] for t in tokens), "first": first, "second": second,
                                "length": run})
    for item in sets["trained_forms"] + sets["unseen_forms"]:
        assert len(item["text"]) <= context, f"{item['text']!r} does not fit the context of {context}"
    sets["docstrings"] = held_docs
    sets["bigram_counts"] = bigram_counts
    return sets


def bigrams(text):
    """counts[a][b]: how often character b follows a in text."""
    counts = np.zeros((len(VOCAB), len(VOCAB)), dtype=np.int64)
    ids = encode(text)
    np.add.at(counts, (ids[:-1], ids[1:]), 1)
    return counts.tolist()


# --- the model --------------------------------------------------------------------------------

def sinusoids(context, width):
    """[i][2j] = sin(i / 10000^(2j / width)), [i][2j + 1] = cos of the same."""
    angle = np.arange(context)[:, None] / 10000 ** (np.arange(0, width, 2)[None, :] / width)
    positions = np.zeros((context, width))
    positions[:, 0::2], positions[:, 1::2] = np.sin(angle), np.cos(angle)
    return positions


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
    mask = np.tril(np.ones((T, T), dtype=bool))
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
    loss = -np.log(np.take_along_axis(probs, targets[..., None], -1)).mean()
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
    grads["embed"] = np.zeros_like(params["embed"])
    np.add.at(grads["embed"], tokens, dx)
    return grads


def learning_rate(step, steps):
    """LR through the first half, then a cosine from LR down to 0 over the second."""
    half = steps // 2
    return LR if step < half else LR * 0.5 * (1 + math.cos(math.pi * (step - half) / max(steps - half, 1)))


def train(seed=0, steps=STEPS, config=CONFIG, log=None, mix=MIX):
    """(params, losses): AdamW as torch does it (decay p by lr * weight_decay, then the Adam step)."""
    rng = np.random.default_rng([seed, 0])
    docs = encode(docstrings()[0])
    params = init(rng, len(VOCAB), config["width"], config["layers"])
    moments = {key: (np.zeros_like(p), np.zeros_like(p)) for key, p in params.items()}
    losses = []
    for step in range(steps):
        data = batch(rng, 1 if step < steps // 2 else 2, docs, config["context"], mix=mix)
        loss, cache = forward(params, data[:, :-1], data[:, 1:], config["heads"])
        grads = backward(params, cache)
        lr, t = learning_rate(step, steps), step + 1
        for key, p in params.items():
            m, v = moments[key]
            m *= BETAS[0]
            m += (1 - BETAS[0]) * grads[key]
            v *= BETAS[1]
            v += (1 - BETAS[1]) * grads[key] ** 2
            p *= 1 - lr * WEIGHT_DECAY
            p -= lr * (m / (1 - BETAS[0] ** t)) / (np.sqrt(v / (1 - BETAS[1] ** t)) + EPS)
        losses.append(float(loss))
        if log and (step + 1) % 1000 == 0:
            log(f"step {step + 1}: loss {np.mean(losses[-1000:]):.3f}")
    return params, losses


# --- the file ---------------------------------------------------------------------------------

def shipped(x):
    """A weight as written to model.json: 8 significant digits (about 1e-8 of it: well under 1e-6)."""
    return float(f"{x:.8g}")


def loss_curve(losses, steps):
    """(every, the mean loss over each `every` steps): about 30 points, whatever the run's length."""
    every = max(steps // 30, 1)
    return every, [round(float(np.mean(losses[i:i + every])), 4) for i in range(0, len(losses), every)]


def model_data(params, curve, seed, steps, seconds, config=CONFIG, mix=MIX, cpu_seconds=None):
    """model.json's object, without measurements: vocabulary, shape, weights, how they were made, held-out sets."""
    def rows(m):
        return [[shipped(v) for v in row] for row in m.tolist()]
    train_docs, held_docs = docstrings()
    count = sum(p.size for p in params.values())
    return {
        "vocab": VOCAB,
        "config": dict(config),
        "about": {"seed": seed, "steps": steps, "parameters": int(count), "training_seconds": round(seconds, 1),
                  "training_cpu_seconds": None if cpu_seconds is None else round(cpu_seconds, 1),
                  "python": platform.python_version(), "numpy": np.__version__,
                  "trainer": "scripts/train_text_model.py",
                  "loss_every": curve[0], "loss_curve": curve[1],
                  "corpus": {"phase_1": f"steps 1-{steps // 2}: repeated random strings (a run of {RUN[0]}-{RUN[1]} "
                                        "characters written twice anywhere in the window)",
                             "phase_2": f"steps {steps // 2 + 1}-{steps}: {mix[0]:.0%} repeated random strings, "
                                        f"{mix[1]:.0%} standard-library docstrings, {mix[2]:.0%} agent transcripts "
                                        "with random ids; learning rate on a cosine to 0",
                             "mix": list(mix), "docstring_modules": list(DOCSTRING_MODULES),
                             "docstring_characters": len(train_docs),
                             "trained_forms": list(TRAINED_FORMS), "unseen_forms": list(UNSEEN_FORMS),
                             "optimizer": f"AdamW lr {LR}, betas {BETAS}, weight decay {WEIGHT_DECAY}, batch {BATCH}"}},
        "weights": {"embed": rows(params["embed"]),
                    "layers": [{name: rows(params[f"{layer}.{name}"]) for name in ("w_q", "w_k", "w_v", "w_o")}
                               for layer in range(config["layers"])],
                    "readout": rows(params["readout"]),
                    "readout_bias": [shipped(v) for v in params["readout_bias"].tolist()]},
        "evaluation": evaluation(seed, held_docs, bigrams(train_docs), config["context"]),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--width", type=int, default=CONFIG["width"])
    parser.add_argument("--heads", type=int, default=CONFIG["heads"])
    parser.add_argument("--mix", type=float, nargs=3, default=MIX, metavar=("REPEATS", "DOCS", "TRANSCRIPTS"),
                        help="phase 2's shares")
    parser.add_argument("--no-measure", action="store_true", help="skip the (slow, pure Python) measurements")
    parser.add_argument("--remeasure", type=Path, metavar="MODEL_JSON",
                        help="no training: that file's weights, with this script's held-out sets, measured again")
    args = parser.parse_args(argv)
    if args.remeasure:
        old = json.loads(args.remeasure.read_text())
        about, w = old["about"], old["weights"]
        params = {"embed": np.array(w["embed"]), "readout": np.array(w["readout"]),
                  "readout_bias": np.array(w["readout_bias"])}
        params |= {f"{layer}.{name}": np.array(m) for layer, block in enumerate(w["layers"]) for name, m in block.items()}
        data = model_data(params, (about["loss_every"], about["loss_curve"]), about["seed"], about["steps"],
                          about["training_seconds"], old["config"], about["corpus"].get("mix", MIX),
                          about.get("training_cpu_seconds"))
    else:
        start, cpu_start = time.perf_counter(), time.process_time()  # wall time swings with the machine's load
        config = {**CONFIG, "width": args.width, "heads": args.heads}
        params, losses = train(args.seed, args.steps, config, log=lambda line: print(line, flush=True), mix=args.mix)
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
        print(f"trained {args.steps} steps in {seconds:.1f} s ({args.steps / max(seconds, 1e-9):.1f} steps/s, "
              f"{cpu_seconds:.0f} s of CPU)", flush=True)
        data = model_data(params, loss_curve(losses, args.steps), args.seed, args.steps, seconds, config, args.mix,
                          cpu_seconds)
    if not args.no_measure:
        sys.path.insert(0, str(ROOT / "py"))
        import mha.text
        begin = time.perf_counter()
        data["measurements"] = mha.text.measure(mha.text.from_data(data))
        print(f"measured in {time.perf_counter() - begin:.1f} s", flush=True)
        print(json.dumps({key: data["measurements"][key] for key in ("copy", "heads", "bits_per_character")}))
    args.out.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1000:.0f} KB)")


if __name__ == "__main__":
    main()
