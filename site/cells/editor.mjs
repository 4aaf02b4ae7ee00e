// The code cells' editor: CodeMirror 6 over each pre-rendered <textarea data-cell-code>, created
// lazily, one cell at a time, when it is needed.
//
// build.py bundles this file with esbuild into cells/editor.js (minified). boot.js imports it only
// when a cell first comes near the screen or is focused or pressed: evaluating the bundle's
// CodeMirror modules takes 40-60 ms on the 2-core test machine, time the page's Python needs while it
// starts (on the same thread). For the same reason (creating all six editors at once cost 220-300 ms
// of main-thread time, measured) the top level only sets up an IntersectionObserver and a few
// listeners (about 1 ms), and a cell gets its editor
// - when its textarea comes within one viewport height of the viewport (above or below), one cell
//   per task, so it is usually there before the reader sees the cell;
// - at once when the reader focuses the bare textarea (Tab reaches cells far off screen, a label
//   click) or presses a pointer on it: the focus moves into the editor, the caret and selection where
//   they were in the textarea (a mouse press: where it pressed);
// - at once when some code asks for it: dispatch a "cell-editor" event on the textarea.
// Until then the textarea shows the code; data-editor="lazy" on it says
// this script is running and its editor is still to come, and cells.css then sets its code where the
// editor's will be, after a gutter as wide as the line numbers'. The editor's height is the
// textarea's, so the swap moves no character and nothing below it: line numbers and colours appear.
// The textarea stays in the DOM, hidden once its editor is up: it is the cell's code for everyone else.
//
// The contract with app/cells.py (and with the reader when this script fails):
// - Every change in the editor is written to textarea.value at once: app/cells.py reads .value.
// - To change the code from outside (Reset), set textarea.value and dispatch an "input" event on
//   the textarea: an editor takes the new text; a textarea without one yet just holds it, and the
//   editor created later starts from textarea.value.
// - If this script fails to load or throws, the textarea is never hidden: it stays the editor, and
//   app/cells.py's own keys (Ctrl/Shift+Enter, Tab, Esc then Tab) work on it.
//
// Keys: Ctrl/Cmd+Enter and Shift+Enter click the cell's Run button (a disabled one does
// nothing). Tab never traps a keyboard reader (CodeMirror's own advice): an editor the focus enters
// is in CodeMirror's tab focus mode, so Tab and Shift+Tab move on and leave the code alone. Once the
// reader types in it, Tab / Shift+Tab indent / dedent, until the focus leaves; Esc, then Tab or
// Shift+Tab, leaves (held here until the next other key). The hint above the editor (cells/view.py's
// TAB) says so before the focus gets there.
//
// Colours: no style attribute and no <style> element (the page's CSP has style-src 'self').
// CodeMirror's structural rules go into one constructed stylesheet adopted by the document (when
// the first editor is created); token colours are classes (tok-*) coloured by cells.css, in light
// and dark. Chromium, typing over a selection that spans lines, merges the lines itself and carries the
// deleted code's colour onto the merged line as a style attribute (style="color: ...; font-style: italic"),
// which the CSP refuses (a console error): typed text that replaces a selection goes in as CodeMirror's own
// change instead (typeOverSelection).

import {EditorSelection, EditorState, Prec} from "@codemirror/state";
import {EditorView, keymap, lineNumbers, highlightSpecialChars} from "@codemirror/view";
import {bracketMatching, indentOnInput, indentUnit, LanguageSupport, syntaxHighlighting} from "@codemirror/language";
import {defaultKeymap, history, historyKeymap, indentWithTab} from "@codemirror/commands";
import {pythonLanguage} from "@codemirror/lang-python";
import {tagHighlighter, tags} from "@lezer/highlight";
import {StyleModule} from "style-mod";

const INDENT = "    ";
const LEAVE_MS = 24 * 60 * 60 * 1000;  // after Esc, Tab leaves until any other key is pressed

// Token classes for cells.css (tok-keyword, ...): the colours live with the page's palette.
const highlighter = tagHighlighter([
  {tag: [tags.keyword, tags.modifier], class: "tok-keyword"},
  {tag: [tags.string, tags.special(tags.string)], class: "tok-string"},
  {tag: tags.escape, class: "tok-escape"},
  {tag: tags.comment, class: "tok-comment"},
  {tag: [tags.number, tags.bool, tags.null], class: "tok-number"},
  {tag: [tags.function(tags.definition(tags.variableName)), tags.definition(tags.className)], class: "tok-def"},
  {tag: [tags.function(tags.variableName), tags.function(tags.propertyName)], class: "tok-call"},
  {tag: tags.meta, class: "tok-meta"},
]);

// style-mod puts CodeMirror's rules in a <style> element when mounted on a document, which
// style-src 'self' refuses. Mounted on a shadow root it uses a constructed stylesheet instead
// (not an inline style, so the CSP allows it): hand it a stand-in that adopts onto the document.
function adoptStylesOnDocument() {
  const mount = StyleModule.mount;
  const stand = {
    ownerDocument: document,
    get adoptedStyleSheets() { return document.adoptedStyleSheets; },
    set adoptedStyleSheets(sheets) { document.adoptedStyleSheets = sheets; },
  };
  StyleModule.mount = (root, modules, options) => mount(root === document ? stand : root, modules, options);
}

// A character typed while the selection is not empty: cancel the browser's own edit (see Colours above) and
// make the change CodeMirror makes when it reads a typed character back from the DOM (its input handlers
// first; "input.type", so indentOnInput and the history treat it as typing). CodeMirror does the same for an
// IME composition over lines (it deletes the selection itself at compositionstart): a composition, and
// a beforeinput that cannot be cancelled (Android's keyboards), are left to it.
function typeOverSelection(event, view) {
  if (event.inputType !== "insertText" || !event.cancelable || view.composing || !event.data) return false;
  const {state} = view;
  if (state.selection.ranges.every((range) => range.empty)) return false;
  const {from, to} = state.selection.main;
  const insert = () => state.update(state.replaceSelection(event.data), {userEvent: "input.type", scrollIntoView: true});
  if (!state.facet(EditorView.inputHandler).some((handler) => handler(view, from, to, event.data, insert))) {
    view.dispatch(insert());
  }
  return true;  // CodeMirror calls preventDefault
}

function runKey(cell) {
  return () => {
    cell.querySelector('button[data-action="run"]')?.click();  // app/cells.py queues it; disabled: nothing
    return true;  // never a newline
  };
}

function editorFor(area) {
  const cell = area.closest("[data-cell]");
  const label = cell.querySelector(`label[for="${area.id}"]`);
  const run = runKey(cell);
  const view = new EditorView({
    state: EditorState.create({
      doc: area.value,  // the pre-rendered code, or what Reset or the reader left in the textarea
      extensions: [
        Prec.highest(keymap.of([{key: "Mod-Enter", run}, {key: "Shift-Enter", run}])),
        lineNumbers(),
        highlightSpecialChars(),
        history(),
        indentUnit.of(INDENT),
        EditorState.tabSize.of(4),
        new LanguageSupport(pythonLanguage),
        syntaxHighlighting(highlighter),
        indentOnInput(),
        bracketMatching(),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorView.contentAttributes.of({
          "aria-label": label ? label.textContent : area.getAttribute("aria-label") || "Python code",
          "aria-describedby": area.getAttribute("aria-describedby") || "",
          spellcheck: "false", autocorrect: "off", autocapitalize: "off", translate: "no",
        }),
        EditorView.domEventHandlers({beforeinput: typeOverSelection}),
        EditorView.domEventObservers({
          keyup(event, view) {
            if (event.key === "Escape") view.setTabFocusMode(LEAVE_MS);
          },
          focus(event, view) { view.setTabFocusMode(true); },  // arriving: Tab moves on
        }),
        EditorView.updateListener.of((update) => {
          if (!update.docChanged) return;
          area.value = update.state.doc.toString();
          const typed = update.transactions.some((tr) => ["input", "delete", "undo", "redo"].some((e) => tr.isUserEvent(e)));
          if (typed) update.view.setTabFocusMode(false);  // the reader is editing: Tab indents
        }),
      ],
    }),
  });
  area.after(view.dom);
  area.addEventListener("input", () => {  // app/cells.py's Reset: the textarea's text wins
    const text = area.value;
    if (text !== view.state.doc.toString()) {
      view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: text}});
    }
  });
  if (label) label.addEventListener("click", () => view.focus());
  area.hidden = true;
  area.dataset.editor = "codemirror";
  return view;
}

// --- when: each textarea's editor is created on first need -------------------------------------

const CODE = "textarea[data-cell-code]";
const views = new Map();  // textarea -> its EditorView, or null if creating it failed
const queue = [];         // textareas near the viewport, waiting for their turn (one per task)
let observer = null;
let draining = false;

function open(area) {
  if (views.has(area)) return views.get(area);
  observer?.unobserve(area);
  forget(area);
  let view = null;
  try {
    view = editorFor(area);
  } catch (error) {
    area.hidden = false;  // this cell keeps its textarea
    area.dataset.editor = "none";
    console.warn("code editor not started for", area.id, error);
  }
  views.set(area, view);
  return view;
}

function forget(area) {
  const at = queue.indexOf(area);
  if (at >= 0) queue.splice(at, 1);
}

function soon(area) {
  if (!views.has(area) && !queue.includes(area)) queue.push(area);
  if (!draining && queue.length) {
    draining = true;
    setTimeout(drain, 0);
  }
}

function drain() {  // one editor per task: the page's other work (Python, input) gets its turns between them
  draining = false;
  const area = queue.shift();
  if (area) open(area);
  if (queue.length) soon(queue[0]);
}

function near(entries) {
  for (const {target, isIntersecting} of entries) {
    if (isIntersecting) soon(target);
    else forget(target);  // scrolled past before its turn: not now
  }
}

// The focus (or the press) was on the bare textarea: the editor takes it, with the same selection.
function takeFocus(area, point) {
  const {selectionStart, selectionEnd, selectionDirection} = area;
  const view = open(area);
  if (!view) return;
  const length = view.state.doc.length;
  let anchor = Math.min(selectionStart, length), head = Math.min(selectionEnd, length);
  if (selectionDirection === "backward") [anchor, head] = [head, anchor];
  if (point) anchor = head = view.posAtCoords(point, false);
  view.dispatch({selection: EditorSelection.single(anchor, head)});
  view.focus();  // without scrolling: the browser scrolled to the textarea, which the editor replaced
  const box = view.dom.getBoundingClientRect();
  if (box.bottom < 0 || box.top > window.innerHeight) {  // the textarea was hidden before the browser scrolled
    view.dispatch({effects: EditorView.scrollIntoView(head, {y: "center"})});
  }
}

function onFocus(event) {
  const area = event.target;
  if (area.matches?.(CODE) && !views.has(area)) takeFocus(area);
}

function onPointer(event) {
  const area = event.target;
  if (!area.matches?.(CODE) || views.has(area)) return;
  if (event.pointerType !== "mouse") {  // a touch may start a scroll: no focus; a tap lands on the editor
    open(area);
    return;
  }
  if (event.button !== 0) return;
  takeFocus(area, {x: event.clientX, y: event.clientY});
  // The mouse press that follows must not move the focus (or the selection) elsewhere: the editor has them.
  area.addEventListener("mousedown", (down) => down.preventDefault(), {once: true});
}

function onAsked(event) {
  if (event.target.matches?.(CODE)) open(event.target);
}

function start() {
  if (!("adoptedStyleSheets" in document)) return;  // no CSP-safe way to style it: keep the textareas
  adoptStylesOnDocument();
  const areas = [...document.querySelectorAll(CODE)];
  for (const area of areas) area.dataset.editor = "lazy";
  document.addEventListener("focusin", onFocus, true);
  document.addEventListener("pointerdown", onPointer, true);
  document.addEventListener("cell-editor", onAsked, true);
  if ("IntersectionObserver" in window) {
    observer = new IntersectionObserver(near, {rootMargin: "100% 0px"});  // a viewport height above and below
    for (const area of areas) observer.observe(area);
  } else {
    for (const area of areas) soon(area);
  }
  if (document.activeElement?.matches(CODE)) takeFocus(document.activeElement);  // focused before this script ran
}

if (document.readyState === "loading") {  // an async module may run before the page is parsed
  document.addEventListener("DOMContentLoaded", start, {once: true});
} else {
  start();
}
