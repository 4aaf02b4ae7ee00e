// The page's only hand-written JavaScript: draw figure trees, show start-up progress, report failure.
// No math here: Python (main.py + figure.py) builds every tree; this file only turns trees into DOM.
//
// Contract with Python:
//   window.mhaDraw(id, json)  json = '[node, "text", ...]', a node = [tag, {attr: value}, ...children];
//                             the element's children are replaced in one go (one FFI call per redraw).
//   window.mhaReady()         main.py has drawn the live figures: <body data-python="ready">.
//   window.mhaFail(reason)    start-up failed: <body data-python="failed"> and a sentence the reader sees.
//   window.mhaPatch(id, json) same-shape redraw: json = {"text": [...], "class": [...], "value": [...],
//                             "delta": [...], "marked": [[text, class], ...]}: one entry per <td> of the
//                             element and per [data-patch] element, in document order; returns false
//                             (nothing changed) if the counts differ, and Python draws the whole tree.
//   window.mhaGridValues(id)  the texts of a grid's fields as JSON rows (one call instead of one per field).
//   window.mhaSetFragment(f)  f() is the figure state as a URL fragment: written (replaceState) 200 ms
//                             after the last call, so typing does not encode the state on every key.

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

// id -> the arrays last patched into its cells: compared with the new ones instead of reading
// thousands of attributes back from the DOM. A full draw of the element forgets them.
const lastPatch = new Map();

window.mhaDraw = (id, json) => {
  const target = document.getElementById(id);
  if (!target) throw new Error(`mhaDraw: no element #${id}`);
  lastPatch.delete(id);
  target.replaceChildren(...JSON.parse(json).map(build));
};

window.mhaPatch = (id, json) => {
  const target = document.getElementById(id);
  if (!target) throw new Error(`mhaPatch: no element #${id}`);
  const { text, class: classes, value, delta, marked } = JSON.parse(json);
  const tds = target.getElementsByTagName("td");
  const patched = target.querySelectorAll("[data-patch]");
  if (tds.length !== text.length || patched.length !== marked.length) return false;
  const last = lastPatch.get(id);
  for (let i = 0; i < tds.length; i++) {
    const td = tds[i];
    if (last ? last.value[i] !== value[i] : td.getAttribute("data-value") !== value[i]) {
      td.firstChild.data = text[i];  // the cell's one text node
      td.setAttribute("data-value", value[i]);
    }
    if (last ? last.classes[i] !== classes[i] : td.className !== classes[i]) td.className = classes[i];
    if ((last ? last.delta[i] : td.getAttribute("data-delta") || "") !== delta[i]) {
      if (delta[i]) td.setAttribute("data-delta", delta[i]);
      else td.removeAttribute("data-delta");
    }
  }
  lastPatch.set(id, { value, classes, delta });
  marked.forEach(([words, cls], i) => {
    const element = patched[i];
    if (element.textContent !== words) element.textContent = words;
    if ((element.getAttribute("class") || "") !== cls) {
      if (cls) element.className = cls;
      else element.removeAttribute("class");
    }
  });
  return true;
};

window.mhaGridValues = (id) => {
  const rows = [];
  for (const field of document.getElementById(id).querySelectorAll("input[data-token]")) {
    (rows[Number(field.dataset.token)] ??= [])[Number(field.dataset.slot)] = field.value;
  }
  return JSON.stringify(rows);
};

let fragmentTimer = null;
window.mhaSetFragment = (encode) => {
  // Chromium throttles rapid replaceState calls, and encoding 32 x 64 numbers on every keystroke
  // is wasted work: ask Python for the text once the edits pause for 200 ms.
  clearTimeout(fragmentTimer);
  fragmentTimer = setTimeout(() => {
    history.replaceState(history.state, "", `${location.pathname}${location.search}#${encode()}`);
  }, 200);
};

// Arrow keys move between the fields of a token grid (left/right only at the text's edges,
// so the caret still moves inside a number); the field reached has its text selected.
const STEPS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
document.addEventListener("keydown", (event) => {
  const field = event.target;
  const step = STEPS[event.key];
  if (!step || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  if (!(field instanceof HTMLInputElement) || field.dataset.token === undefined) return;
  const [dt, ds] = step;
  const start = field.selectionStart ?? 0;
  const end = field.selectionEnd ?? field.value.length;
  const whole = start === 0 && end === field.value.length;
  if (ds < 0 && start !== 0 && !whole) return;
  if (ds > 0 && end !== field.value.length && !whole) return;
  const token = Number(field.dataset.token) + dt;
  const slot = Number(field.dataset.slot) + ds;
  const next = field.closest("table")?.querySelector(`input[data-token="${token}"][data-slot="${slot}"]`);
  if (!next) return;
  event.preventDefault();
  next.focus();
  next.select();
});

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

// Python here is CPython compiled to WebAssembly: without it nothing can start, so say so at once.
if (typeof WebAssembly !== "object" || typeof WebAssembly.instantiate !== "function") {
  window.mhaFail("this browser has no WebAssembly (it may be switched off), which the live Python needs");
} else {
  setStage("download");
}
