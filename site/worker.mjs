// The code cells' interpreter: a Pyodide of its own in a Web Worker, so a cell can never freeze the page.
// The page stops a cell by terminating this worker (time limit, Stop) and starting a fresh one.
// No math and no cell logic here: cells/worker.py runs the code; this file only starts Python.
//
// Contract with cells/glue.py (the page's Python):
//   page -> worker  {id, code, figure}          run `code`; figure = the live figure's settings (JSON text)
//   worker -> page  {type: "ready"}             Python, mha and the site's modules are loaded
//                   {type: "show", id, tokens}  a cell's show(tokens) passed the figure's gate (tokens: JSON)
//                   {type: "output", id, text}  what the cell printed so far (it is still running)
//                   {type: "done", id, result}  result: JSON {out, error, seconds, shown}
//                   {type: "failed", reason}    start-up failed (the page says so in every cell)
import { loadPyodide } from "../pyodide/pyodide.mjs";

const here = (path) => new URL(path, new URL("../", import.meta.url)).href;  // relative to the site's root

async function start() {
  // pyscript.json names the same archives the page unpacks (mha's wheel, the site's modules): one list.
  const config = await (await fetch(here("pyscript.json"))).json();
  const pyodide = await loadPyodide({ indexURL: here("pyodide/") });
  for (const [url, target] of Object.entries(config.files)) {
    const format = url.endsWith(".whl") ? "wheel" : "zip";
    if (target !== "./*") throw new Error(`cells: ${url} is not an archive for the working directory`);
    const response = await fetch(here(url));
    if (!response.ok) throw new Error(`cells: ${url} answered ${response.status}`);
    pyodide.unpackArchive(await response.arrayBuffer(), format, { extractDir: "." });
  }
  pyodide.runPython("import sys, os; sys.path.insert(0, os.getcwd())");
  return { pyodide, run: pyodide.pyimport("cells.worker").run };
}

const started = start();
started.then(() => postMessage({ type: "ready" }),
             (error) => postMessage({ type: "failed", reason: String(error?.message ?? error).slice(0, 200) }));

onmessage = async ({ data: { id, code, figure } }) => {
  const { pyodide, run } = await started;
  if (/^\s*(import|from)\s+micropip\b/m.test(code)) await pyodide.loadPackage("micropip");  // on demand
  const result = run(code, figure, (tokens) => postMessage({ type: "show", id, tokens }),
                     (text) => postMessage({ type: "output", id, text }));
  postMessage({ type: "done", id, result });
};
