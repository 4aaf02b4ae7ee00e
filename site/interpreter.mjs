// The interpreter PyScript is configured with (pyscript.json's "interpreter"): Pyodide, started
// the moment this module runs instead of when PyScript asks for it, ready to run the page's Python.
//
// index.html loads this file first, as an async module, so Pyodide's downloads and the compiling of
// its WebAssembly overlap with parsing the page and starting PyScript. PyScript later imports this
// same module (one module instance per URL) and calls loadPyodide(options): it gets the interpreter
// already on its way. Of PyScript's options only stdout and stderr matter (where print() goes);
// they are taken over when PyScript asks. What PyScript gets:
// - a Pyodide started from pyodide/page_stdlib.zip, the standard library the page's Python imports
//   with its bytecode (build.py), so its start compiles no module, and from pyodide/page-lock.json,
//   a lock file that names no package (the page loads none; the cells' worker reads the whole lock);
// - mha and the site's modules already in its working directory (archives.mjs fetches and unzips
//   them while Pyodide starts); mhaLater(name) adds a "later" archive's files when the page asks.
// No logic beyond that lives here.
import { fetchArchives, fetchLater, writeFiles } from "./archives.mjs";
import { loadPyodide as startPyodide, version } from "./pyodide/pyodide.mjs";

const sinks = { stdout: (text) => console.log(text), stderr: (text) => console.error(text) };

// Pyodide 314 catches a failed download of its WebAssembly, logs a warning and never settles. So its
// compile step is watched here: if that fails, the interpreter's promise fails with the reason, and
// PyScript reports it (boot.js shows it to the reader). The original is put back once Pyodide is up.
const instantiateStreaming = WebAssembly.instantiateStreaming;
let wasmFailed;
const wasmFailure = new Promise((_, reject) => { wasmFailed = reject; });
WebAssembly.instantiateStreaming = (source, imports) =>
  instantiateStreaming(source, imports).catch((error) => {
    wasmFailed(error);
    throw error;
  });

const pyodide = Promise.race([wasmFailure, startPyodide({
  indexURL: new URL("./pyodide/", import.meta.url).href,
  stdLibURL: new URL("./pyodide/page_stdlib.zip", import.meta.url).href,
  lockFileURL: new URL("./pyodide/page-lock.json", import.meta.url).href,  // no packages: the page loads none
  stdout: (text) => sinks.stdout(text),
  stderr: (text) => sinks.stderr(text),
})]);
const files = fetchArchives(new URL("./pyscript.json", import.meta.url).href).catch((error) => {
  throw new Error(`the page's Python files could not be fetched: ${error.message}`);
});
const interpreter = Promise.all([pyodide, files]).then(([python, unpacked]) => {
  writeFiles(python, unpacked);
  return python;
});
pyodide.finally(() => { WebAssembly.instantiateStreaming = instantiateStreaming; }).catch(() => {});
// A failure is reported once, through PyScript, which awaits this promise: not here as well.
interpreter.catch(() => {});

// A later archive (pyscript.json's "later"), fetched and written beside mha's files when the page's Python asks:
// app/text.py awaits window.mhaLater("text-models") before it loads a model. Asked twice, fetched once.
const later = new Map();
globalThis.mhaLater = (name) => {
  if (!later.has(name)) {
    const config = new URL("./pyscript.json", import.meta.url).href;
    later.set(name, Promise.all([interpreter, fetchLater(config, name)]).then(([python, unpacked]) => {
      writeFiles(python, unpacked);
    }));
    later.get(name).catch(() => later.delete(name));  // a failed fetch is tried again next time
  }
  return later.get(name);
};

export { version };

export function loadPyodide({ stdout, stderr } = {}) {
  if (stdout) sinks.stdout = stdout;
  if (stderr) sinks.stderr = stderr;
  return interpreter;
}
