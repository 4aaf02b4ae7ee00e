// The interpreter PyScript is configured with (pyscript.json's "interpreter"): Pyodide, started
// the moment this module runs instead of when PyScript asks for it.
//
// index.html loads this file first, as an async module, so Pyodide's downloads and the compiling of
// its WebAssembly overlap with parsing the page and starting PyScript. PyScript later imports this
// same module (one module instance per URL) and calls loadPyodide(options): it gets the interpreter
// already on its way. Of PyScript's options only stdout and stderr matter (where print() goes);
// they are taken over when PyScript asks. No logic beyond that lives here.
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

const interpreter = Promise.race([wasmFailure, startPyodide({
  indexURL: new URL("./pyodide/", import.meta.url).href,
  stdout: (text) => sinks.stdout(text),
  stderr: (text) => sinks.stderr(text),
})]);
interpreter.finally(() => { WebAssembly.instantiateStreaming = instantiateStreaming; }).catch(() => {});
// A failure is reported once, through PyScript, which awaits this promise: not here as well.
interpreter.catch(() => {});

export { version };

export function loadPyodide({ stdout, stderr } = {}) {
  if (stdout) sinks.stdout = stdout;
  if (stderr) sinks.stderr = stderr;
  return interpreter;
}
