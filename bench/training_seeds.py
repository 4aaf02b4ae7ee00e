"""Which seeds learn, and what forms, at a training setting: a many-seed sweep of mha.training.

    .venv/bin/python bench/training_seeds.py sweep NAME [FIRST LAST]   # seeds FIRST..LAST (default 0 29)
    .venv/bin/python bench/training_seeds.py speed [NAME ...]           # step time, and seed 0's time to 95%
    .venv/bin/python bench/training_seeds.py table [NAME ...]           # the table from the saved results
    .venv/bin/python bench/training_seeds.py site NAME                  # the page's many-seed figure's data

Every seed runs in this one process, one after another (one core: the machine is shared). Each
seed's result is saved as soon as it is measured into bench/results/training_seeds.json, so a sweep
can be stopped and resumed. Step times are printed as ratios to the (1, 1) model's, measured in
the same run, alternating, because this machine's speed swings by 2x. A benchmark, not a test.
"""

import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))

from mha.training import LEARNED_MIN as LEARNED, accuracy, classify, composition, head_report, train  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "training_seeds.json"
SITE_FILE = ROOT / "site" / "figures" / "training_seeds.json"  # read by site/figures/seeds.py at build time

# name: train()'s keyword arguments. "old" is the defaults before several heads per layer.
SETTINGS = {
    "old": {"heads": (1, 1), "steps": 800, "lr": (0.03, 0.003), "std": 0.3, "batch": 8},
    "h22": {"heads": (2, 2), "steps": 800, "lr": (0.03, 0.003), "std": 0.3, "batch": 8},
    "h21": {"heads": (2, 1), "steps": 800, "lr": (0.03, 0.003), "std": 0.3, "batch": 8},
}


def load():
    return json.loads(RESULTS.read_text()) if RESULTS.is_file() else {}


def save(results):
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")


def measure(setting, seed):
    """One seed trained at setting: accuracy, per-head report, composition, classification, seconds."""
    start = time.perf_counter()
    params = train(seed, horizon=setting["steps"], **setting)
    seconds = time.perf_counter() - start
    report, held_out = head_report(params), accuracy(params)
    return {"accuracy": held_out, "heads": report, "composition": composition(params),
            "kind": classify(report, held_out), "seconds": round(seconds, 2)}


def sweep(name, first=0, last=29):
    setting = SETTINGS[name]
    for seed in range(first, last + 1):
        results = load()
        done = results.setdefault(name, {"setting": setting, "seeds": {}})["seeds"]
        if str(seed) in done:
            continue
        done[str(seed)] = measure(setting, seed)
        save(results)
        row = done[str(seed)]
        print(f"{name} seed {seed}: {row['accuracy']:.3f} {row['kind']['kind']} ({row['seconds']} s)", flush=True)


def summary(name, seeds):
    """Counts over seeds: learned (>= 90%), the pair formed, something else, stalled (< 90%)."""
    rows = [seeds[s] for s in sorted(seeds, key=int)]
    kinds = [classify(r["heads"], r["accuracy"])["kind"] for r in rows]  # today's thresholds, not the saved kind
    learned = sum(r["accuracy"] >= LEARNED for r in rows)
    return {"name": name, "seeds": len(rows), "learned": learned, "pair": kinds.count("pair"),
            "else": sum(k == "other" and r["accuracy"] >= LEARNED for k, r in zip(kinds, rows)),
            "stalled": len(rows) - learned,
            "not_learned": [int(s) for s in sorted(seeds, key=int) if seeds[s]["accuracy"] < LEARNED],
            "not_pair": [int(s) for s, k in zip(sorted(seeds, key=int), kinds) if k != "pair"]}


def table(names):
    results = load()
    print("| setting | seeds | >= 90% | pair formed | something else (>= 90%) | stalled (< 90%) |")
    print("|---|---|---|---|---|---|")
    for name in names or results:
        if name in results and name != "speed":
            s = summary(name, results[name]["seeds"])
            print(f"| {name} | {s['seeds']} | {s['learned']} | {s['pair']} | {s['else']} | {s['stalled']} |")
            print(f"|   | not learned: {s['not_learned']} | not a pair: {s['not_pair']} | | | |")
    for name in names or results:
        if name in results and name != "speed":
            spread(name, results[name]["seeds"])


def spread(name, seeds):
    """The top previous-token score (layer 0) and top induction score (layer >= 1) of every seed, sorted:
    where the thresholds in mha.training.roles sit between the runs that learned and those that did not."""
    for key, layers in (("previous_token", lambda layer: layer == 0), ("induction", lambda layer: layer >= 1)):
        for learned in (True, False):
            tops = sorted(round(max(h[key] for h in r["heads"] if layers(h["layer"])), 2)
                          for r in seeds.values() if (r["accuracy"] >= LEARNED) is learned)
            print(f"{name}: top {key} score of the {'learned' if learned else 'not learned'} seeds: {tops}")


def site(name):
    """Write SITE_FILE: the setting and, per seed in order, its accuracy and classify() (today's thresholds)."""
    setting, seeds = load()[name]["setting"], load()[name]["seeds"]
    rows = []
    for seed in sorted(seeds, key=int):
        row = seeds[seed]
        verdict = classify(row["heads"], row["accuracy"])
        rows.append({"seed": int(seed), "accuracy": row["accuracy"], "learned": verdict["learned"],  # unrounded:
                     "kind": verdict["kind"], "induction_head": verdict["induction_head"],  # the page rounds
                     "induction": verdict["induction"],
                     "previous_token_head": verdict["previous_token_head"],
                     "previous_token": verdict["previous_token"]})
    assert [r["seed"] for r in rows] == list(range(len(rows))), "the sweep has gaps: run it to the end first"
    lines = ",\n".join(json.dumps(row) for row in rows)  # one seed a line: a diff shows which seed moved
    SITE_FILE.write_text(f'{{"setting": {json.dumps(setting)},\n"seeds": [\n{lines}\n]}}\n')
    print(f"wrote {SITE_FILE.relative_to(ROOT)}: seeds 0-{len(rows) - 1}")


def step_time(setting, steps=30):
    start = time.perf_counter()
    train(0, steps, **{k: v for k, v in setting.items() if k != "steps"})
    return (time.perf_counter() - start) / steps


def time_to_95(setting):
    """Seed 0: [step, training seconds] when held-out accuracy first reaches 95% (checked every 25 steps,
    outside the clock; the run stops there), or None if it never does."""
    clock = {"spent": 0.0, "last": time.perf_counter(), "reached": None}

    def tick(step, loss, params):
        now = time.perf_counter()
        clock["spent"] += now - clock["last"]
        if (step + 1) % 25 == 0 and accuracy(params) >= 0.95:
            clock["reached"] = [step + 1, round(clock["spent"], 2)]
            return False
        clock["last"] = time.perf_counter()
    train(0, callback=tick, horizon=setting["steps"], **setting)
    return clock["reached"]


def speed(names, rounds=3):
    """Step time per setting as a ratio to old's (alternating, medians), and seed 0's time to 95%."""
    times = {name: [] for name in ["old", *names]}
    for _ in range(rounds):
        for name in times:
            times[name].append(step_time(SETTINGS[name]))
    base = statistics.median(times["old"])
    results = load()
    out = results.setdefault("speed", {})
    for name in times:
        out[name] = {"step_ratio": round(statistics.median(times[name]) / base, 2),
                     "step_ms": round(1000 * statistics.median(times[name]), 1),
                     "to_95": time_to_95(SETTINGS[name])}
        print(name, out[name], flush=True)
    save(results)


if __name__ == "__main__":
    command, *rest = sys.argv[1:] or ["table"]
    if command == "sweep":
        sweep(rest[0], *map(int, rest[1:3]))
    elif command == "speed":
        speed(rest)
    elif command == "site":
        site(rest[0])
    else:
        table(rest)
