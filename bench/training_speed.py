"""How long default-seed training takes: to 95% held-out accuracy and to its last step.

    .venv/bin/python bench/training_speed.py

CPython always; Pyodide under Node too if node_modules/pyodide exists. The
time to 95% counts training steps only: held-out accuracy is checked every
25 steps, outside the clock. A benchmark, not a test.
"""

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))

from mha.training import STEPS, accuracy, train  # noqa: E402

MEASURE = f"""
import json, sys, time
sys.path.insert(0, {str(ROOT / 'py')!r}) if '/project/py' not in sys.path else None
from mha.training import STEPS, accuracy, train
clock = {{"spent": 0.0, "last": time.perf_counter(), "reached": None}}
def tick(step, loss, params):
    now = time.perf_counter()
    clock["spent"] += now - clock["last"]
    if clock["reached"] is None and (step + 1) % 25 == 0 and accuracy(params) >= 0.95:
        clock["reached"] = (step + 1, clock["spent"])
    clock["last"] = time.perf_counter()
train(0, STEPS, tick)
print(json.dumps({{"steps": STEPS, "seconds": clock["spent"], "reached": clock["reached"]}}))
"""

NODE = """
import { loadPyodide } from "pyodide";
import { resolve } from "node:path";
const pyodide = await loadPyodide({ stdout: (line) => console.log(line) });
pyodide.FS.mkdirTree("/project/py");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: resolve(process.argv[1], "py") }, "/project/py");
pyodide.runPython("import sys; sys.path.insert(0, '/project/py')");
await pyodide.runPythonAsync(process.argv[2]);
"""


def cpython():
    out = subprocess.run([sys.executable, "-c", MEASURE], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def pyodide():
    if shutil.which("node") is None or not (ROOT / "node_modules" / "pyodide").is_dir():
        return None
    out = subprocess.run(["node", "--input-type=module", "-e", NODE, str(ROOT), MEASURE],
                         capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def row(name, result):
    steps, seconds = result["reached"] or (None, None)
    to_95 = f"{seconds:.1f} s (step {steps})" if steps else "not reached"
    per_step = 1000 * result["seconds"] / result["steps"]
    return f"| {name} | {to_95} | {result['seconds']:.1f} s | {per_step:.1f} ms |"


def main():
    print("| interpreter | to 95% held-out | all steps | per step (batch 8) |")
    print("|---|---|---|---|")
    print(row(f"CPython {sys.version.split()[0]}", cpython()))
    result = pyodide()
    print(row("Pyodide under Node", result) if result else "| Pyodide under Node | (node_modules/pyodide missing) | | |")
    params = train(0, STEPS)
    start = time.perf_counter()
    from mha.training import predict
    for _ in range(100):
        predict(params, [3, 1, 4, 0, 2, 5, 0, 2, 5, 1, 1, 2])
    print(f"\npredict(): {10 * (time.perf_counter() - start):.2f} ms per 12-token sequence (CPython);"
          f" held-out accuracy {accuracy(params):.3f}")


if __name__ == "__main__":
    main()
