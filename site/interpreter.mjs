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

const interpreter = startPyodide({
  indexURL: new URL("./pyodide/", import.meta.url).href,
  stdout: (text) => sinks.stdout(text),
  stderr: (text) => sinks.stderr(text),
});
// A failure is reported once, through PyScript, which awaits this promise: not here as well.
interpreter.catch(() => {});

export { version };

export function loadPyodide({ stdout, stderr } = {}) {
  if (stdout) sinks.stdout = stdout;
  if (stderr) sinks.stderr = stderr;
  return interpreter;
}
