// Run a Python file inside real Pyodide under Node, with py/ on the path.
// Usage: node tests/unit/run_in_pyodide.mjs SCRIPT.py  (prints what the script prints)
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPyodide } from "pyodide";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pyodide = await loadPyodide({ stdout: (line) => console.log(line), stderr: (line) => console.error(line) });
pyodide.FS.mkdirTree("/project/py");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: resolve(root, "py") }, "/project/py");
pyodide.runPython("import sys; sys.path.insert(0, '/project/py')");
await pyodide.runPythonAsync(readFileSync(process.argv[2], "utf8"));
