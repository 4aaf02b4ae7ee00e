// The page's only hand-written JavaScript: draw figure trees, show start-up progress, report failure.
// No math here: Python (app/main.py + figures/) builds every tree; this file only turns trees into DOM.
//
// Contract with Python:
//   window.mhaDraw(id, json)  json = '[node, "text", ...]', a node = [tag, {attr: value}, ...children];
//                             the element's children become the trees (one FFI call per redraw; nodes
//                             already in place are kept and updated, see drawChildren).
//   window.mhaUpdate(id, json)  json = page/dom.py's edits: the changes a draw of new trees over the element's last
//                             ones makes, worked out in Python (section 9's maps and guesses, on every key).
//   window.mhaReady()         main.py has drawn the live figures: <body data-python="ready">.
//   window.mhaFail(reason)    start-up failed: <body data-python="failed"> and a sentence the reader sees.
//   window.mhaPatch(id, text, class, delta, values, marked)  same-shape redraw: one entry per <td> of the
//                             element, in document order: text, class and delta as newline-joined
//                             strings, values a Float64Array (each table's data-values: the pythonRepr
//                             of its cells' numbers, space-separated); marked = JSON [[text, class], ...],
//                             one per [data-patch] element.
//                             Returns false (nothing changed) if the counts differ, and Python draws the
//                             whole tree. Lines of class "attn-line" (the attention pictures,
//                             figures/pictures.py) mirror the <td>s one for one: the i-th line's
//                             stroke-opacity is the i-th value.
//   window.mhaGridValues(id)  the texts of a grid's fields as JSON rows (one call instead of one per field).
//   window.mhaChangedWhileLoading()  JSON: the ids of the controls outside the token grids changed before
//                             ready, in the order of their last change (main.py applies them then).
//   window.mhaWhenNear(elements, run)  run() once, when one of elements comes near the screen or is touched.
//   window.mhaSetFragment(f)  f() is the figure state as a URL fragment: written (replaceState) 200 ms
//                             after the last call, so typing does not encode the state on every key.
//   window.mhaWorker(module)  a module Web Worker running worker.mjs?module=MODULE: the one way the page
//                             starts a worker (the cells', the training's). See startWorker.

const SVG_TAGS = ["svg", "g", "line", "polyline", "path", "rect", "circle", "text", "title", "desc", "tspan"];
const TAGS = new Set([
  "button", "caption", "code", "div", "em", "fieldset", "figcaption", "figure", "h3", "input", "kbd",
  "label", "legend", "li", "ol", "optgroup", "option", "output", "p", "pre", "select", "small", "span",
  "strong", "table", "tbody", "td", "textarea", "th", "thead", "tr", "ul", ...SVG_TAGS,
]);
const SVG = "http://www.w3.org/2000/svg";  // an <svg> and all inside it are made in this namespace
const ATTRIBUTE = /^[a-z0-9-]+$/;
const CASED_ATTRIBUTES = new Set(["viewBox", "preserveAspectRatio"]);  // SVG's camel-case names
const STAGES = ["download", "start", "draw"];
// How long start-up may take before the page gives up: a cold load is ~3 s here, 2 cores.
const GIVE_UP_MS = 120000;

function check(tag, attrs, drawer = "mhaDraw") {  // drawer: the function whose error it is
  if (!TAGS.has(tag)) throw new Error(`${drawer}: tag ${tag} is not allowed`);
  checkAttributes(attrs, drawer);
}

function checkAttributes(attrs, drawer) {  // page/dom.py's check_attributes
  for (const name of Object.keys(attrs)) {
    if (!(ATTRIBUTE.test(name) || CASED_ATTRIBUTES.has(name)) || name.startsWith("on") || name === "style") {
      throw new Error(`${drawer}: attribute ${name} is not allowed`);
    }
  }
}

function checkTree(node, drawer = "mhaDraw") {
  if (typeof node === "string") return;
  const [tag, attrs, ...children] = node;
  check(tag, attrs, drawer);
  children.forEach((child) => checkTree(child, drawer));
}

function build(node, inSvg = false) {
  if (typeof node === "string") return document.createTextNode(node);
  const [tag, attrs, ...children] = node;
  check(tag, attrs);
  const svg = inSvg || tag === "svg";
  const element = svg ? document.createElementNS(SVG, tag) : document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== false) element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) element.append(build(child, svg));
  return element;
}

// A draw keeps each node already in place that has the tree's tag there, and brings its attributes and
// children to the tree's; anything else is built anew. The DOM ends as if every child had been replaced,
// but an edit that moves only numbers rewrites only their text (rebuilt elements are styled and laid out
// again in full: about 1.5 ms a keystroke for the summary and the key/value figure at 16 x 64). Fields are
// always built anew: a kept <input> would go on showing what a reader typed instead of its new value.
const BUILT_ANEW = new Set(["input", "select", "textarea"]);

function keeps(here, node, inSvg) {
  if (typeof node === "string") return here.nodeType === Node.TEXT_NODE;
  const [tag] = node;
  return here.nodeType === Node.ELEMENT_NODE && here.localName === tag && !BUILT_ANEW.has(tag)
    && (here.namespaceURI === SVG) === (inSvg || tag === "svg");
}

function drawChildren(parent, nodes, inSvg) {
  const present = [...parent.childNodes];
  nodes.forEach((node, i) => {
    const here = present[i];
    if (here && keeps(here, node, inSvg)) redrawNode(here, node, inSvg);
    else if (here) here.replaceWith(build(node, inSvg));
    else parent.append(build(node, inSvg));
  });
  for (const extra of present.slice(nodes.length)) extra.remove();
}

function redrawNode(here, node, inSvg) {
  if (typeof node === "string") {
    if (here.data !== node) here.data = node;
    return;
  }
  const [tag, attrs, ...children] = node;
  for (const name of here.getAttributeNames()) {
    if (!Object.hasOwn(attrs, name) || attrs[name] === false) here.removeAttribute(name);
  }
  for (const [name, value] of Object.entries(attrs)) {
    const text = value === true ? "" : String(value);
    if (value !== false && here.getAttribute(name) !== text) here.setAttribute(name, text);
  }
  drawChildren(here, children, inSvg || tag === "svg");
}

// id -> the arrays last patched into its cells: compared with the new ones instead of reading
// thousands of attributes back from the DOM. A full draw of the element forgets them.
const lastPatch = new Map();

window.mhaDraw = (id, json) => {
  const target = document.getElementById(id);
  if (!target) throw new Error(`mhaDraw: no element #${id}`);
  const nodes = JSON.parse(json);
  nodes.forEach((node) => checkTree(node));  // a tree the page refuses changes nothing
  lastPatch.delete(id);
  drawChildren(target, nodes, false);
  if (LIT_PANELS.includes(id) || id === "token-grid") lightRow();  // new rows: light the chosen query again
};

// page/dom.py's edits: what a draw of new trees over the element's last ones would change, worked out in Python
// (a typed character in section 9 changes one row of each map and one cell of the guesses). All are checked
// before any is made, so refused edits change nothing.
function edited(target, path) {
  let node = target;
  for (const k of path) {
    node = node.childNodes[k];
    if (!node) throw new Error(`mhaUpdate: no node at ${path.join(".")}`);
  }
  return node;
}

const inSvgNode = (node) => node.namespaceURI === SVG;

window.mhaUpdate = (id, json) => {
  const target = document.getElementById(id);
  if (!target) throw new Error(`mhaUpdate: no element #${id}`);
  const edits = JSON.parse(json);
  for (const [kind, , what] of edits) {
    if (kind === "attrs") checkAttributes(what, "mhaUpdate");
    else if (kind === "node") checkTree(what, "mhaUpdate");
    else if (kind === "add") what.forEach((node) => checkTree(node, "mhaUpdate"));
    else if (kind !== "cut") throw new Error(`mhaUpdate: no edit ${kind}`);
  }
  lastPatch.delete(id);
  for (const [kind, path, what] of edits) {
    const here = edited(target, path);
    if (kind === "attrs") {
      for (const [name, value] of Object.entries(what)) {
        if (value === false) here.removeAttribute(name);
        else here.setAttribute(name, value === true ? "" : String(value));
      }
    } else if (kind === "node") {
      here.replaceWith(build(what, inSvgNode(here.parentNode)));
    } else if (kind === "add") {
      here.append(...what.map((node) => build(node, inSvgNode(here))));
    } else {
      while (here.childNodes.length > what) here.lastChild.remove();
    }
  }
};

// Python's repr() of a float, for a table's data-values. JavaScript's shortest round-trip digits are
// Python's (each prints the shortest decimal that reads back as the same double); only the layout differs: Python
// writes "1.0", "-0.0", "1e-05", "1e+16" where JavaScript writes "1", "0", "0.00001", "10000000000000000".
// So the digits come from toExponential() and are laid out as Python's float_repr does.
function pythonRepr(x) {
  const size = Math.abs(x);
  if (size >= 1e-4 && size < 1e16) {  // where both print plain decimals: all but the ".0" of a whole number
    const text = String(x);
    return Number.isInteger(x) ? `${text}.0` : text;
  }
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  const [mantissa, exponent] = Math.abs(x).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const point = Number(exponent) + 1;  // |x| = 0.<digits> x 10^point
  if (point <= -4 || point > 16) {
    return `${sign}${mantissa}e${exponent[0]}${exponent.slice(1).padStart(2, "0")}`;
  }
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

window.mhaPatch = (id, textColumn, classColumn, deltaColumn, value, markedJson) => {
  const target = document.getElementById(id);
  if (!target) throw new Error(`mhaPatch: no element #${id}`);
  const text = textColumn ? textColumn.split("\n") : [];  // a text is never empty: "" is no cells
  const column = (joined) => (text.length ? joined.split("\n") : []);
  const [classes, delta] = [classColumn, deltaColumn].map(column);
  const marked = JSON.parse(markedJson);
  const tds = target.querySelectorAll("td");
  const patched = target.querySelectorAll("[data-patch]");
  // A picture's lines come in the order of the table cells they draw (none past pictures.PICTURE_TOKENS).
  // A static list: a live one by class is re-collected after every class change below, and reading its
  // length per cell made a patch that moved many classes quadratic (50-70 ms at 2304 cells).
  const lines = target.querySelectorAll(".attn-line");
  if (tds.length !== text.length || value.length !== text.length || patched.length !== marked.length) return false;
  if (lines.length && lines.length !== tds.length) return false;
  const tables = target.querySelectorAll("table");
  const cellsOf = [...tables].map((table) => table.getElementsByTagName("td").length);
  if (cellsOf.reduce((sum, count) => sum + count, 0) !== tds.length) {
    throw new Error(`mhaPatch: #${id} has a cell outside a table`);
  }
  const last = lastPatch.get(id);
  const exact = Array.from(value, pythonRepr);  // each number as Python prints it: the lines, the data-values
  for (let i = 0; i < tds.length; i++) {
    const td = tds[i];
    // The 4-decimal text often stays when the exact value moves: leave that cell's layout alone.
    if (last ? last.text[i] !== text[i] : td.firstChild.data !== text[i]) td.firstChild.data = text[i];
    if (lines.length && lines[i].getAttribute("stroke-opacity") !== exact[i]) {
      lines[i].setAttribute("stroke-opacity", exact[i]);
    }
    if (last ? last.classes[i] !== classes[i] : td.className !== classes[i]) td.className = classes[i];
    if ((last ? last.delta[i] : td.getAttribute("data-delta") || "") !== delta[i]) {
      if (delta[i]) td.setAttribute("data-delta", delta[i]);
      else td.removeAttribute("data-delta");
    }
  }
  let start = 0;  // each table's exact numbers: one attribute per table (page/dom.py, exact_values)
  tables.forEach((table, t) => {
    const values = exact.slice(start, start + cellsOf[t]).join(" ");
    if (table.getAttribute("data-values") !== values) table.setAttribute("data-values", values);
    start += cellsOf[t];
  });
  lastPatch.set(id, { text, classes, delta });
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

// Pointing at or focusing a query token lights its row in every head's table and picture: a field of
// the token grid, a weight table's row header, or a picture's query (its lines or its number). Plain UI,
// so it works before Python has loaded: class "lit" on those rows and on the grid's row, "lighting" on
// the panels (CSS dims the pictures' other queries). Only classes change, so nothing moves; mhaPatch
// writes td classes only, so the lit <tr> and <g> keep theirs, and mhaDraw lights new rows again.
const LIT_PANELS = ["head-tables", "cross-tables"];
const chosen = { pointer: null, focus: null, last: "focus" };  // the latest token pointed at or focused wins
let litNow = [];

function queryOf(node) {
  if (!(node instanceof Element)) return null;
  const field = node.closest("#token-grid input[data-token]");
  if (field) return Number(field.dataset.token);
  if (!node.closest(".heads")) return null;  // #head-tables, #cross-tables
  const header = node.closest("table.weights > tbody > tr > th");
  if (header) return header.parentElement.sectionRowIndex;
  const query = node.closest(".attn-q[data-query]");
  return query ? Number(query.dataset.query) : null;
}

function lightRow() {
  const row = chosen[chosen.last] ?? chosen.pointer ?? chosen.focus;
  for (const element of litNow) element.classList.remove("lit");
  litNow = [];
  for (const id of LIT_PANELS) {
    const panel = document.getElementById(id);
    if (!panel) continue;
    panel.classList.toggle("lighting", row !== null);
    if (row === null) continue;
    for (const body of panel.querySelectorAll("table.weights > tbody")) if (body.rows[row]) litNow.push(body.rows[row]);
    litNow.push(...panel.querySelectorAll(`.attn-q[data-query="${row}"]`));
  }
  const grid = document.querySelector("#token-grid table > tbody");
  if (row !== null && grid?.rows[row]) litNow.push(grid.rows[row]);
  for (const element of litNow) element.classList.add("lit");
}

function choose(source, node) {
  const row = queryOf(node);
  if (chosen[source] === row) return;
  chosen[source] = row;
  if (row !== null) chosen.last = source;
  lightRow();
}
document.addEventListener("pointerover", (event) => choose("pointer", event.target));
document.addEventListener("pointerout", (event) => { if (!event.relatedTarget) choose("pointer", null); });
document.addEventListener("focusin", (event) => choose("focus", event.target));
document.addEventListener("focusout", (event) => choose("focus", event.relatedTarget));

// A keystroke in a token grid: its field is laid out alone first (style.css makes each field a layout
// boundary), then Python redraws the figures. Laid out in one pass with the figures' changes, the field
// made the browser lay out the whole grid again: about 1 ms a keystroke at 16 x 64 (README, bench).
document.addEventListener("input", (event) => {
  if (event.target instanceof HTMLInputElement && event.target.closest(".token-grid")) void event.target.offsetWidth;
}, true);

// A picker, switch or field changed before Python was ready did nothing yet: main.py applies each, in
// order, as if it changed now, so the reader's choice is kept. (Token grids are read by main.py instead:
// mhaGridValues. The questions and the trained model's section are not the figure's.)
const changedWhileLoading = [];  // ids, in the order of their last change
for (const kind of ["input", "change"]) {
  document.addEventListener(kind, (event) => {
    const target = event.target;
    if (document.body.dataset.python === "loading" && target instanceof Element && target.closest("main")
        && target.id && !target.closest(".token-grid, #trained, [data-question]")) {
      const before = changedWhileLoading.indexOf(target.id);
      if (before >= 0) changedWhileLoading.splice(before, 1);
      changedWhileLoading.push(target.id);
    }
  }, true);
}
window.mhaChangedWhileLoading = () => JSON.stringify(changedWhileLoading);

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
  // A link pasted meanwhile wins: its hashchange decides what the page shows, so the page's older state must
  // not be written over it (under load the timer could fire before that hashchange, and the link was lost).
  clearTimeout(fragmentTimer);
  const before = location.hash;
  fragmentTimer = setTimeout(() => {
    if (location.hash !== before) return;
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

// A probed pattern's cells (figures/heatmap.py, heat_map's readable rows): each <rect> names its exact weight in its
// <title>, worded by Python. Pointing at or focusing one writes that into the probe's readout; the arrow keys
// move between a map's cells (one tab stop per map: the focused cell holds tabindex 0).
function readCell(cell) {
  const out = cell.closest(".train-probe")?.querySelector(".train-readout");
  const title = cell.querySelector("title");
  if (out && title && out.textContent !== title.textContent) out.textContent = title.textContent;
}
for (const kind of ["pointerover", "focusin"]) {
  document.addEventListener(kind, (event) => {
    const cell = event.target instanceof Element && event.target.closest("svg.train-map rect[data-q]");
    if (cell) readCell(cell);
  });
}
document.addEventListener("keydown", (event) => {
  const cell = event.target instanceof Element && event.target.closest("svg.train-map rect[data-q]");
  const step = STEPS[event.key];
  if (!cell || !step || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  const [dq, dk] = step;
  const [q, k] = [Number(cell.dataset.q) + dq, Number(cell.dataset.k) + dk];
  const next = cell.ownerSVGElement.querySelector(`rect[data-q="${q}"][data-k="${k}"]`);
  if (!next) return;
  event.preventDefault();
  cell.setAttribute("tabindex", "-1");
  next.setAttribute("tabindex", "0");
  next.focus();
});

// run(), once: the first time one of elements comes within a screen's height of the viewport, or
// something in it is pointed at, pressed or focused (Tab can reach a field far off screen). How boot.js
// keeps big, optional work (a section's data, the code editor) out of the page's start-up. Its
// listeners and observer go once run() has run.
function whenNear(elements, run) {
  elements = elements.filter(Boolean);
  if (!elements.length) return;
  const listening = new AbortController();
  const near = "IntersectionObserver" in window ? new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) once();
  }, { rootMargin: "100% 0px" }) : null;  // one viewport height above and below the screen
  function once() {
    if (listening.signal.aborted) return;
    listening.abort();
    near?.disconnect();
    run();
  }
  for (const kind of ["focusin", "pointerover", "pointerdown"]) {
    document.addEventListener(kind, (event) => {
      if (event.target instanceof Node && elements.some((element) => element.contains(event.target))) once();
    }, { capture: true, signal: listening.signal });
  }
  if (!near) return once();
  for (const element of elements) near.observe(element);
}
window.mhaWhenNear = whenNear;  // app/training.py loads section 8's run by the same rule

// A worker started from its own URL takes its Content-Security-Policy from that file's response headers, and
// a static host sends none: a reader's code in it could reach any site. A worker started from a blob: URL
// inherits the page's policy instead, so every worker starts from a one-line blob that imports worker.mjs.
// The import is dynamic: its files are then fetched as scripts (script-src 'self'), so the page's worker-src
// can be blob: alone, and code in a worker cannot start a nested one from a same-origin URL, whose policy
// would again be none. One blob per module, kept for the page's life.
const workerBlobs = new Map();
function startWorker(module) {
  if (!workerBlobs.has(module)) {
    const url = new URL(`./worker.mjs?module=${encodeURIComponent(module)}`, import.meta.url).href;
    const failed = "(error) => postMessage({ type: 'failed', reason: String(error?.message ?? error).slice(0, 200) })";
    const source = new Blob([`import(${JSON.stringify(url)}).catch(${failed});\n`], { type: "text/javascript" });
    workerBlobs.set(module, URL.createObjectURL(source));
  }
  return new Worker(workerBlobs.get(module), { type: "module" });
}
window.mhaWorker = startWorker;  // app/cells.py and app/training.py start their workers with it

// The trained model's step slider (section "Heads nobody designed"). The page carries only the chosen
// checkpoint's frame; the others (figures/training.py's trees, written by build.py as
// training-frames.json) are fetched and drawn, hidden, when the section comes near or the slider is
// first touched, so start-up parses none of them. Moving the slider shows its frame, before Python has
// loaded as after (and without it); a frame that has not arrived yet is shown when it does, the old one
// dimmed meanwhile. If they cannot be fetched, the slider goes back to the frame shown and a sentence
// says so. No numbers are computed here: the step names are the slider's data-labels. app/training.py
// redraws the probe.
const FRAMES_URL = "./training-frames.json";
let frames = null;  // the fetch under way or done: resolves true (drawn) or false (failed); null again after a failure

function showFrame() {
  const slider = document.getElementById("train-step");
  const box = document.getElementById("fig-train-frames");
  const label = (slider.dataset.labels ?? "").split("|")[Number(slider.value)] ?? "";
  document.getElementById("train-step-text").textContent = label;
  slider.setAttribute("aria-valuetext", label);
  const wanted = box.querySelector(`[data-frame="${Number(slider.value)}"]`);
  if (!wanted) {
    box.setAttribute("aria-busy", "true");  // the frame shown stays, dimmed, until the chosen one arrives
    loadFrames();
    return;
  }
  box.removeAttribute("aria-busy");
  for (const frame of box.querySelectorAll("[data-frame]")) frame.hidden = frame !== wanted;
}

function drawFrames(trees) {
  const box = document.getElementById("fig-train-frames");
  for (const tree of trees) {
    const frame = build(tree);
    const index = Number(frame.dataset.frame);
    const present = [...box.querySelectorAll("[data-frame]")];
    if (present.some((f) => Number(f.dataset.frame) === index)) continue;
    frame.hidden = true;
    box.insertBefore(frame, present.find((f) => Number(f.dataset.frame) > index) ?? null);  // checkpoint order
  }
  document.getElementById("train-frames-error").textContent = "";
  showFrame();
}

function framesFailed(reason) {
  const slider = document.getElementById("train-step");
  const box = document.getElementById("fig-train-frames");
  const shown = box.querySelector("[data-frame]:not([hidden])") ?? box.querySelector("[data-frame]");
  box.removeAttribute("aria-busy");
  document.getElementById("train-frames-error").textContent =
    `The other checkpoints could not be loaded (${reason}), so the slider stays at ${shown.dataset.label}. ` +
    "Move it to try again, or reload the page.";
  if (slider.value !== shown.dataset.frame) {
    slider.value = shown.dataset.frame;
    slider.dispatchEvent(new Event("input", { bubbles: true }));  // the label, and the glue's probe, follow
  }
}

function loadFrames() {
  frames ??= fetch(FRAMES_URL)
    .then((response) => {
      if (!response.ok) throw new Error(`the server answered ${response.status}`);
      return response.json();
    })
    .then((trees) => {
      drawFrames(trees);
      return true;
    })
    .catch((error) => {
      frames = null;  // a later move of the slider tries again
      framesFailed(String(error?.message ?? error).slice(0, 120));
      return false;
    });
  return frames;
}

document.addEventListener("input", (event) => {
  if (event.target.id === "train-step") showFrame();
});
// A failed fetch is tried again only when the slider moves (showFrame), not by coming near again.
whenNear([document.getElementById("fig-train-frames"), document.getElementById("train-step")], loadFrames);

// The code cells' editor (cells/editor.js: CodeMirror, about 360 KB) is fetched and run only once a cell
// comes near or the reader focuses or presses one, so none of it competes with Python's start.
// editor.mjs then makes each cell's editor as it is needed; until then, and if it cannot load, the
// textarea is the editor.
whenNear([...document.querySelectorAll("textarea[data-cell-code]")], () => {
  import("./cells/editor.js").catch((error) => console.warn("the code editor could not load:", error));
});

// Predict, then check: a question's answer is not in the page; answers.json (written by build.py from
// figures/questions.py, numbers by mha) is fetched on the first Check. Works before Python has loaded.
// Prose or a figure that gives an answer away waits in the section as [data-after=ID] hidden, and
// [data-before=ID] (a note saying what waits) shows until then. Picking another answer clears the
// verdict and hides all of it again: each check is of the answer now chosen. Focus stays on Check.
let answers = null;
function showAnswer(qid, shown) {
  for (const element of document.querySelectorAll(`[data-after="${qid}"]`)) element.hidden = !shown;
  for (const element of document.querySelectorAll(`[data-before="${qid}"]`)) element.hidden = shown;
}
document.addEventListener("change", (event) => {
  const question = event.target instanceof Element && event.target.closest("fieldset[data-question]");
  if (!question) return;
  const out = document.getElementById(`q-${question.dataset.question}-answer`);
  out.replaceChildren();
  delete out.dataset.verdict;
  showAnswer(question.dataset.question, false);
});
document.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-check]");
  if (!button) return;
  const qid = button.dataset.check;
  const chosen = button.closest("fieldset").querySelector("input[type=radio]:checked");
  const out = document.getElementById(`q-${qid}-answer`);
  if (!chosen) {
    out.replaceChildren(build(["p", {}, "Pick an answer first: the point is to commit before you look."]));
    return;
  }
  try {
    answers ??= await (await fetch("./answers.json")).json();
  } catch (error) {
    answers = null;
    out.replaceChildren(build(["p", {}, "The answers could not be loaded; reload the page to try again."]));
    return;
  }
  if (!chosen.checked) return;  // another answer was picked while answers.json loaded: that one is unchecked
  const { answer, verdicts, explanation } = answers[qid];
  out.dataset.verdict = chosen.value === answer ? "right" : "wrong";
  out.replaceChildren(build(["p", {}, ["strong", {}, verdicts[chosen.value]]]), build(["p", {}, explanation]));
  showAnswer(qid, true);
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

// PyScript reports each start-up step as a py:progress event whose detail is a sentence. mha needs no
// step of its own: interpreter.mjs writes it into Python's files before PyScript has the interpreter.
addEventListener("py:progress", ({ detail }) => {
  const text = String(detail);
  if (text === "Loaded interpreter") setStage("start");
  else if (text === "Loaded Pyodide") setStage("draw");
});

// The interpreter's two big downloads finishing means Python itself is now starting.
const seen = new Set();
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const file = entry.name.split("/").pop();
    if (file === "pyodide.asm.wasm" || file === "page_stdlib.zip") seen.add(file);
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
// main.py's script finished without calling mhaReady: it raised. (If Python was up before the page was
// parsed, main.py waits for DOMContentLoaded to start: judge only after that.)
addEventListener("py:all-done", () => {
  const judge = () => window.mhaFail("the page's Python code stopped with an error");
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => setTimeout(judge));
  else judge();
});
const giveUp = setTimeout(() => window.mhaFail("start-up took too long"), GIVE_UP_MS);

// Python here is CPython compiled to WebAssembly: without it nothing can start, so say so at once.
if (typeof WebAssembly !== "object" || typeof WebAssembly.instantiate !== "function") {
  window.mhaFail("this browser has no WebAssembly (it may be switched off), which the live Python needs");
} else {
  setStage("download");
}
