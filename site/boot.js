// The page's only hand-written JavaScript: draw figure trees, show start-up progress, report failure.
// No math here: Python (main.py + figure.py) builds every tree; this file only turns trees into DOM.
//
// Contract with Python:
//   window.mhaDraw(id, json)  json = '[node, "text", ...]', a node = [tag, {attr: value}, ...children];
//                             the element's children are replaced in one go (one FFI call per redraw).
//   window.mhaReady()         main.py has drawn the live figures: <body data-python="ready">.
//   window.mhaFail(reason)    start-up failed: <body data-python="failed"> and a sentence the reader sees.

const TAGS = new Set([
  "button", "caption", "code", "div", "em", "figcaption", "figure", "h3", "input", "label",
  "li", "ol", "optgroup", "option", "output", "p", "pre", "select", "small", "span",
  "strong", "table", "tbody", "td", "textarea", "th", "thead", "tr", "ul",
]);
const ATTRIBUTE = /^[a-z0-9-]+$/;
const STAGES = ["download", "start", "install", "draw"];
// How long start-up may take before the page gives up: a cold load is ~3 s here, 2 cores.
const GIVE_UP_MS = 120000;

function build(node) {
  if (typeof node === "string") return document.createTextNode(node);
  const [tag, attrs, ...children] = node;
  if (!TAGS.has(tag)) throw new Error(`mhaDraw: tag ${tag} is not allowed`);
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (!ATTRIBUTE.test(name) || name.startsWith("on") || name === "style") {
      throw new Error(`mhaDraw: attribute ${name} is not allowed`);
    }
    if (value === false) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) element.append(build(child));
  return element;
}

window.mhaDraw = (id, json) => {
  const target = document.getElementById(id);
  if (!target) throw new Error(`mhaDraw: no element #${id}`);
  target.replaceChildren(...JSON.parse(json).map(build));
};

const status = document.getElementById("py-status");
const bar = document.getElementById("py-progress");
let stage = -1;

function setStage(name) {
  const index = STAGES.indexOf(name);
  if (index <= stage || document.body.dataset.python !== "loading") return;
  stage = index;
  bar.value = index + 0.5;  // half-way through this stage: the bar never looks empty
  for (const item of status.querySelectorAll("[data-stage]")) {
    const at = STAGES.indexOf(item.dataset.stage);
    item.dataset.state = at < index ? "done" : at === index ? "current" : "waiting";
  }
}

window.mhaReady = () => {
  if (document.body.dataset.python !== "loading") return;
  clearTimeout(giveUp);
  bar.value = STAGES.length;
  for (const item of status.querySelectorAll("[data-stage]")) item.dataset.state = "done";
  document.getElementById("py-stage-note").textContent = "Python is running: edit any number.";
  document.body.dataset.python = "ready";
};

window.mhaFail = (reason) => {
  if (document.body.dataset.python !== "loading") return;
  clearTimeout(giveUp);
  document.body.dataset.python = "failed";
  const alert = document.getElementById("py-failed");
  alert.textContent =
    "The live figures could not start, so the numbers below stay at the worked example. " +
    `Reload the page to try again. (${reason})`;
  alert.hidden = false;
  // Nothing would answer an edit now: say so by making the fields read-only.
  for (const field of document.querySelectorAll("main input")) field.readOnly = true;
};

// PyScript reports each start-up step as a py:progress event whose detail is a sentence.
addEventListener("py:progress", ({ detail }) => {
  const text = String(detail);
  if (text === "Loaded interpreter" || text.startsWith("Loading files")) setStage("start");
  else if (/micropip|mha/i.test(text)) setStage("install");
  else if (text === "Loaded Pyodide") setStage("draw");
});

// The interpreter's two big downloads finishing means Python itself is now starting.
const seen = new Set();
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const file = entry.name.split("/").pop();
    if (file === "pyodide.asm.wasm" || file === "python_stdlib.zip") seen.add(file);
  }
  if (seen.size === 2) setStage("start");
}).observe({ type: "resource", buffered: true });

// A failed download or a Python error before ready: PyScript reports it as an error or a rejection.
function failFrom(event) {
  const error = event.reason ?? event.error ?? event.message;
  const lines = String(error?.message ?? error ?? "unknown error").split("\n").filter((l) => l.trim());
  // A Python traceback's last line is the sentence that names the problem.
  const text = /Traceback/.test(lines[0]) ? lines[lines.length - 1] : lines[0];
  window.mhaFail(text.trim().slice(0, 200));
}
addEventListener("error", failFrom);
addEventListener("unhandledrejection", failFrom);
// main.py's script finished without calling mhaReady: it raised.
addEventListener("py:all-done", () => window.mhaFail("the page's Python code stopped with an error"));
const giveUp = setTimeout(() => window.mhaFail("start-up took too long"), GIVE_UP_MS);

setStage("download");
