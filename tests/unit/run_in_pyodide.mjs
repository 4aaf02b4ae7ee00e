// Run a Python file inside real Pyodide under Node, with py/ and site/ on the path.
// Usage: node tests/unit/run_in_pyodide.mjs SCRIPT.py  (prints what the script prints)
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPyodide } from "pyodide";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pyodide = await loadPyodide({ stdout: (line) => console.log(line), stderr: (line) => console.error(line) });
for (const folder of ["py", "site"]) {  // mha, and the page's pure modules (bench/mha_speed.py uses one)
  pyodide.FS.mkdirTree(`/project/${folder}`);
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: resolve(root, folder) }, `/project/${folder}`);
}
pyodide.runPython("import sys; sys.path[:0] = ['/project/py', '/project/site']");
await pyodide.runPythonAsync(readFileSync(process.argv[2], "utf8"));
