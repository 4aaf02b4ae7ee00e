"""Benchmark: multi_head_attention on 16 tokens, width 64, 8 heads, random projections.

    python bench/mha_speed.py            # CPython and Pyodide (under Node), median of 50 runs

Prints one line per interpreter. Not a test: nothing here asserts a time.
"""

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = 50

# The timed part: the same source runs in CPython and in Pyodide.
TIMED = f"""
import json, statistics, time
import mha
tokens = [[((t * 7 + s * 3) % 11) / 5 - 1 for s in range(64)] for t in range(16)]
weights = mha.random_projections(64, 8, seed=0)
times = []
for _ in range({RUNS}):
    start = time.perf_counter()
    mha.multi_head_attention(tokens, 8, **weights)
    times.append((time.perf_counter() - start) * 1000)
print(json.dumps({{"median_ms": statistics.median(times), "min_ms": min(times)}}))
"""


def in_cpython():
    sys.path.insert(0, str(ROOT / "py"))
    scope = {}
    out = []
    exec(TIMED.replace("print(", "out.append("), {"out": out, **scope})
    return json.loads(out[0])


def in_pyodide():
    script = ROOT / "bench" / ".pyodide_timed.py"
    script.write_text(TIMED)
    try:
        out = subprocess.run(["node", ROOT / "tests" / "run_in_pyodide.mjs", script],
                             capture_output=True, text=True, cwd=ROOT, check=True)
    finally:
        script.unlink()
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    for name, run in (("CPython " + sys.version.split()[0], in_cpython), ("Pyodide (Node)", in_pyodide)):
        figures = run()
        print(f"{name:>20}: median {figures['median_ms']:.2f} ms, best {figures['min_ms']:.2f} ms "
              f"(16 tokens, width 64, 8 heads, learned projections; {RUNS} runs)")


if __name__ == "__main__":
    main()
