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
# "cold": every call projects every token from scratch (mha's own x @ W).
# "edit": the page's way (site/page/state.py's Projected, lent the rows of the call before, passed
#         as project=): one token slot changes before each call, as when a reader types, and only it
#         is projected again.
TIMED = f"""
import json, statistics, time
import mha
from page.state import Projected
tokens = [[((t * 7 + s * 3) % 11) / 5 - 1 for s in range(64)] for t in range(16)]
weights = mha.random_projections(64, 8, seed=0)

def median_ms(edit):
    times = []
    rows = Projected((64, 8, 8, 0), weights)
    for i in range({RUNS}):
        if edit:
            tokens[i % 16][i % 64] += 0.1
            rows = Projected(rows.key, weights, rows.rows)
        start = time.perf_counter()
        project = {{"project": rows}} if edit else {{}}
        mha.multi_head_attention(tokens, 8, **weights, **project).outputs  # outputs are lazy: read them
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)

print(json.dumps({{"cold_ms": median_ms(False), "edit_ms": median_ms(True)}}))
"""


def in_cpython():
    sys.path[:0] = [str(ROOT / "py"), str(ROOT / "site")]
    scope = {}
    out = []
    exec(TIMED.replace("print(", "out.append("), {"out": out, **scope})
    return json.loads(out[0])


def in_pyodide():
    script = ROOT / "bench" / ".pyodide_timed.py"
    script.write_text(TIMED)
    try:
        out = subprocess.run(["node", ROOT / "tests" / "unit" / "run_in_pyodide.mjs", script],
                             capture_output=True, text=True, cwd=ROOT, check=True)
    finally:
        script.unlink()
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    for name, run in (("CPython " + sys.version.split()[0], in_cpython), ("Pyodide (Node)", in_pyodide)):
        figures = run()
        print(f"{name:>16}: cold {figures['cold_ms']:6.2f} ms | after a one-token edit {figures['edit_ms']:6.2f} ms"
              f"   (median of {RUNS}; 16 tokens, width 64, 8 heads, random projections)")


if __name__ == "__main__":
    main()
