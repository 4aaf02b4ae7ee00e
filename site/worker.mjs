// A Python of its own in a Web Worker: the cells' interpreter, and the one that trains the tiny model.
// The page stops work here by terminating the worker and starting a fresh one. No math and no logic
// here: this file starts Pyodide with mha and the site's modules, then hands every message to the
// Python module named in the URL (worker.mjs?module=cells.worker), whose handle() does the work.
//
// Contract:
//   worker -> page  {type: "ready"}              Python, mha and the site's modules are loaded
//                   {type: "failed", reason}     start-up failed
//   page -> worker  any JSON message             passed to MODULE.handle(message_json, post) as text
//   worker -> page  what handle() posts          post(json_text) sends JSON.parse(json_text)
//                   {type: "refused", url, id}   the page's policy refused a request of message id's run
//
// The page starts this file from a blob: URL (boot.js's mhaWorker), so the page's Content-Security-Policy
// holds here too: a request to another origin is refused before anything is sent.
// Imported dynamically, not with import statements: Firefox checks a worker's static imports against the
// page's worker-src (blob: only), a dynamic import against script-src ('self'), as Chromium does for both.
const { fetched, fetchArchives, writeFiles } = await import("./archives.mjs");
const { loadPyodide } = await import("./pyodide/pyodide.mjs");

const here = (path) => new URL(path, import.meta.url).href;  // relative to the site's root
const module = new URL(import.meta.url).searchParams.get("module");
const REST = "/lib/stdlib_rest.zip";  // where the rest of the standard library goes in Pyodide's files

async function start() {
  if (!/^[a-z_.]+$/.test(module ?? "")) throw new Error(`worker.mjs: no Python module named in its URL`);
  // pyscript.json's "archives" (mha's wheel, the site's modules) and its "later" ones (mha.text's models, which the
  // page fetches only when section 9 nears): unzipped while Pyodide starts.
  const files = fetchArchives(here("pyscript.json"), { later: true });
  // The standard library the page did not need (build.py), for a reader's imports: fetched meanwhile too.
  const rest = fetched(here("pyodide/stdlib_rest.zip")).then((response) => response.arrayBuffer());
  files.catch(() => {});  // reported below, once Pyodide is up (or has failed first)
  rest.catch(() => {});
  // The page's own standard library, with its bytecode: in the HTTP cache already, and nothing to compile.
  const pyodide = await loadPyodide({ indexURL: here("pyodide/"), stdLibURL: here("pyodide/page_stdlib.zip") });
  writeFiles(pyodide, await files);
  pyodide.FS.writeFile(REST, new Uint8Array(await rest));
  pyodide.runPython("import sys, os; sys.path.insert(0, os.getcwd())");
  pyodide.runPython(`import stdlib_rest; stdlib_rest.install("${REST}")`);
  return pyodide.pyimport(module).handle;
}

// A worker started from a blob: URL has no base for relative URLs: a reader's "training.json" (fetch, pyfetch,
// micropip, open_url) means this site's file, as it did in a worker started from worker.mjs's own URL.
// Text that is no URL at all is passed on as it was, for the browser's own error.
const absolute = (url) => (typeof url === "string" && URL.canParse(url, import.meta.url) ? here(url) : url);
const { fetch: nativeFetch, Request: NativeRequest, XMLHttpRequest: { prototype: xhr } } = globalThis;
const nativeOpen = xhr.open;
globalThis.fetch = (resource, options) => nativeFetch(absolute(resource), options);
globalThis.Request = class Request extends NativeRequest {
  constructor(input, options) { super(absolute(input), options); }
};
xhr.open = function open(method, url, ...rest) { return nativeOpen.call(this, method, absolute(url), ...rest); };

const started = start();
started.then(() => postMessage({ type: "ready" }),
             (error) => postMessage({ type: "failed", reason: String(error?.message ?? error).slice(0, 200) }));

// The browser fires this for each refused request (fetch, XMLHttpRequest, WebSocket, EventSource, a beacon,
// an import), as the request starts: the page tells the reader, under the run (the id of the message being
// handled), why their code could not reach the other site.
let handling = null;
addEventListener("securitypolicyviolation", ({ blockedURI }) => postMessage({ type: "refused", url: blockedURI,
                                                                             id: handling }));

const post = (json) => postMessage(JSON.parse(json));
onmessage = async ({ data }) => {
  handling = data?.id ?? null;
  const handle = await started;
  await handle(JSON.stringify(data), post);  // handle() may be async (e.g. to load micropip on demand)
};
