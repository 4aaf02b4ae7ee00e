"""What a shipped model does, measured on its held-out sets (the trainer calls measure() once per seed).

Probes: where each head puts its weight, scored on held-out docstrings (and, for induction, on held-out
repeated random strings). Each probe names, for a query row, the keys that count; a head's score is the
weight it puts on them, averaged over the rows the probe applies to. Beside each, what weights spread evenly
over the row's keys would score: a score far above that is a pattern, not an accident of counting.

- previous_token: row i, key i - 1.
- same_character: row i, every earlier key j < i holding the same character (the row's own key left out).
- word_start: row i two or more characters into a word of letters and digits, key: that word's first character.
- bracket: row i inside a quote or bracket opened two or more characters before (the innermost one), key: it.
- induction: in the second copy of a repeated run, key: the character after the same one in the first copy.

Tasks, each also measured with each head switched off:
- copy: of a repeated id, the characters from the second on, guessed right at its second occurrence
  (MIN_DISTANCE or more characters after the first), on prompt forms it trained on and forms it never saw.
- close: the probability given to the character that closes a quote or bracket, where the held-out docstrings
  close one (opened in the same piece, two or more characters before).
- bits per character on held-out docstrings, beside an add-one bigram model counted on the training docstrings.

measure(model, reader=...) takes another reader of the same forward pass (the trainer passes numpy's):
reader(text, off) -> (probabilities, weights), as mha.text.read gives them.
"""

import math
from types import MappingProxyType

from .reading import read

PROBES = ("previous_token", "same_character", "word_start", "bracket", "induction")
OPENERS = MappingProxyType({'"': '"', "(": ")", "[": "]", "{": "}"})  # what opens, and what closes it
ROLE_MIN, ROLE_LIFT = 0.1, 4  # a role: a probe scoring ROLE_MIN or more, ROLE_LIFT times even weights' or more
HALF, LITTLE = 0.5, 0.1  # a double dissociation: one head off costs one task HALF or more, the other under LITTLE


def pure_reader(model):
    """mha.text.read as measure() calls it: (text, off) -> (probabilities, weights)."""
    def reader(text, off=()):
        reading = read(model, text, off)
        return reading.probabilities, reading.weights
    return reader


def is_word(char):
    return char.isalnum()


def probe_keys(text):
    """{probe: [(row, keys)]} for every probe but induction: the rows of text each applies to, and its keys."""
    found = {name: [] for name in PROBES if name != "induction"}
    seen, start, stack = {}, 0, []
    for i, char in enumerate(text):
        if i >= 1:
            found["previous_token"].append((i, (i - 1,)))
        if seen.get(char):
            found["same_character"].append((i, tuple(seen[char])))
        if is_word(char) and not (i and is_word(text[i - 1])):
            start = i
        if is_word(char) and i - start >= 2:
            found["word_start"].append((i, (start,)))
        if stack and stack[-1] < i - 1:
            found["bracket"].append((i, (stack[-1],)))
        if stack and OPENERS[text[stack[-1]]] == char:
            stack.pop()
        elif char in OPENERS:
            stack.append(i)
        seen.setdefault(char, []).append(i)
    return found


def closing_rows(text):
    """[(row, closer)]: each row i whose next character closes the innermost quote or bracket, opened at i - 1 or
    before."""
    rows, stack = [], []
    for i, char in enumerate(text):
        if stack and OPENERS[text[stack[-1]]] == char:
            if stack[-1] < i - 1:
                rows.append((i - 1, char))
            stack.pop()
        elif char in OPENERS:
            stack.append(i)
    return rows


def pieces(model, text):
    """text in pieces of context + 1 characters overlapping by one: each character but the first is the next
    character of exactly one row."""
    return [text[start:start + model.context + 1] for start in range(0, len(text) - 1, model.context)]


def induction_positions(repeat):
    """(p, answer) pairs of a repeat {"text", "first", "second", "length"}: each character p of the second
    copy but its last, and where the character after its first occurrence sits."""
    gap = repeat["second"] - repeat["first"]
    return [(p, p - gap + 1) for p in range(repeat["second"], repeat["second"] + repeat["length"] - 1)]


def head_scores(model, sets, reader):
    """Per head, layer by layer: {"layer", "head", probe: score, ...}, and {probe: the even-weights score}."""
    sums = {name: dict.fromkeys(PROBES, 0.0) for name in model.names}
    counts, even = dict.fromkeys(PROBES, 0), dict.fromkeys(PROBES, 0.0)

    def add(probe, weights, row, keys):
        for layer, head in model.names:
            w = weights[layer][head][row]
            sums[layer, head][probe] += sum(w[k] for k in keys)
        counts[probe] += 1
        even[probe] += len(keys) / (row + 1)

    for piece in pieces(model, sets["docstrings"]):
        text = piece[:-1]
        weights = reader(text)[1]
        for probe, rows in probe_keys(text).items():
            for row, keys in rows:
                add(probe, weights, row, keys)
    for repeat in sets["repeats"]:
        weights = reader(repeat["text"])[1]
        for row, answer in induction_positions(repeat):
            add("induction", weights, row, (answer,))
    scores = [{"layer": layer, "head": head, **{p: sums[layer, head][p] / counts[p] for p in PROBES}}
              for layer, head in model.names]
    return scores, {p: even[p] / counts[p] for p in PROBES}


def lift(row, even, probe):
    """How many times what even weights would score a head scores on a probe."""
    return row[probe] / even[probe]


def roles(scores, even):
    """Each head's role: [layer, head, role]: of the probes it scores ROLE_MIN or more on, the one it beats even
    weights on by most, if by ROLE_LIFT times or more; None when there is none."""
    named = []
    for row in scores:
        heavy = [p for p in PROBES if row[p] >= ROLE_MIN]
        best = max(heavy, key=lambda p: lift(row, even, p), default=None)
        named.append([row["layer"], row["head"], best if best and lift(row, even, best) >= ROLE_LIFT else None])
    return named


def copy_accuracy(reader, vocab, prompts, off=()):
    """(right, total) over prompts, each {"text", "second", "length"}: the id of `length` characters at
    text[second:]; its characters 1..length-1 count, each right when the guess after the one before is it."""
    right = total = 0
    for prompt in prompts:
        probabilities, text, second = reader(prompt["text"], off)[0], prompt["text"], prompt["second"]
        for k in range(1, prompt["length"]):
            row = probabilities[second + k - 1]
            right += vocab[_argmax(row)] == text[second + k]
            total += 1
    return right, total


def close_probability(model, reader, text, off=()):
    """(mean probability of the closing character where text closes a quote or bracket, how many such rows)."""
    total = count = 0
    for piece in pieces(model, text):
        rows = closing_rows(piece)
        if rows:
            probabilities = reader(piece[:-1], off)[0]
            for row, closer in rows:
                total += probabilities[row][model.vocab.index(closer)]
                count += 1
    return total / count, count


def bits_per_character(model, text, reader=None):
    """Mean -log2 P(text[i] | what came before, at most context characters), over i = 1..len(text)-1: the text
    read in pieces (each character predicted once, from the start of its piece)."""
    reader = reader or pure_reader(model)
    bits = count = 0
    for piece in pieces(model, text):
        rows = reader(piece[:-1])[0]
        for i, char in enumerate(piece[1:]):
            bits -= math.log2(rows[i][model.vocab.index(char)])
            count += 1
    return bits / count


def bigram_bits(vocab, counts, text):
    """Mean -log2 P(text[i] | text[i-1]) over i = 1..len(text)-1, add-one smoothed:
    P(b | a) = (counts[a][b] + 1) / (sum over c of counts[a][c] + len(vocab))."""
    bits = 0.0
    for a, b in zip(text, text[1:]):
        row = counts[vocab.index(a)]
        bits -= math.log2((row[vocab.index(b)] + 1) / (sum(row) + len(vocab)))
    return bits / (len(text) - 1)


def cost(tasks, off, task):
    """What switching the heads `off` costs `task` ("unseen" copying or "close"), from measure()'s tasks: the share
    of its score with every head on (tasks[0]) lost, 1 - score off / score on; below 0 the task gained."""
    base = tasks[0][task]
    row = next(r for r in tasks if [tuple(p) for p in r["off"]] == [tuple(p) for p in off])
    return 1 - row[task] / base if base else 0.0


def dissociation(tasks):
    """A double dissociation among the single heads switched off, or None: {"copy_head", "close_head"}, where
    switching copy_head off costs copy (unseen forms) HALF or more and close under LITTLE, and close_head the
    reverse; the pair with the largest smaller cost of the two if there are several."""
    def cost_of(row, task):
        return cost(tasks, row["off"], task)
    singles = [row for row in tasks[1:] if len(row["off"]) == 1]
    copy_heads = [r for r in singles if cost_of(r, "unseen") >= HALF and cost_of(r, "close") < LITTLE]
    close_heads = [r for r in singles if cost_of(r, "close") >= HALF and cost_of(r, "unseen") < LITTLE]
    if not (copy_heads and close_heads):
        return None
    a = max(copy_heads, key=lambda r: cost_of(r, "unseen"))
    b = max(close_heads, key=lambda r: cost_of(r, "close"))
    return {"copy_head": a["off"][0], "close_head": b["off"][0],
            "copy_costs": [cost_of(a, "unseen"), cost_of(a, "close")], "close_costs": [cost_of(b, "unseen"), cost_of(b, "close")]}


def measure(model, reader=None):
    """Every figure issue 43 asks for, from the model's own held-out sets (slow in pure Python: the trainer passes
    numpy's reader)."""
    reader = reader or pure_reader(model)
    sets = model.evaluation
    scores, even = head_scores(model, sets, reader)
    previous = [(layer, head) for layer, head, role in roles(scores, even)
                if role == "previous_token" and layer < model.layers - 1]

    def task(off):
        (right_t, total_t) = copy_accuracy(reader, model.vocab, sets["trained_forms"], off)
        (right_u, total_u) = copy_accuracy(reader, model.vocab, sets["unseen_forms"], off)
        close, closes = close_probability(model, reader, sets["docstrings"], off)
        return {"off": [list(pair) for pair in off], "trained": right_t / total_t, "unseen": right_u / total_u,
                "close": close, "trained_characters": total_t, "unseen_characters": total_u, "closes": closes}

    sets_off = [()] + [(name,) for name in model.names] + ([tuple(previous)] if len(previous) > 1 else [])
    tasks = [task(off) for off in sets_off]
    return {
        "chance": 1 / len(model.vocab),
        "scores": scores,
        "even": even,
        "roles": roles(scores, even),
        "previous_token_heads": [list(pair) for pair in previous],
        "tasks": tasks,
        "dissociation": dissociation(tasks),
        "bits_per_character": {"model": bits_per_character(model, sets["docstrings"], reader),
                               "bigram": bigram_bits(model.vocab, sets["bigram_counts"], sets["docstrings"]),
                               "characters": len(sets["docstrings"]) - 1, "bigram_smoothing": "add-one"},
    }


def _argmax(row):
    """The index of the largest entry (the first, on a tie)."""
    return max(range(len(row)), key=row.__getitem__)
