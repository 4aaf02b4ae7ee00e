// The code cells' editor: CodeMirror 6 over each pre-rendered <textarea data-cell-code>.
//
// build.py bundles this file with esbuild into cells/editor.js (minified); index.html loads it
// as a module script, so the editors come up as soon as the page is parsed, before Python.
// The textarea stays in the DOM, hidden: it is the cell's code for everyone else.
//
// The contract with cells/glue.py (and with the reader when this script fails):
// - Every change in the editor is written to textarea.value at once: glue.py reads .value.
// - To change the code from outside (Reset), set textarea.value and dispatch an "input"
//   event on the textarea: the editor then takes the new text.
// - If this script fails to load or throws, the textarea is never hidden: it stays the
//   editor, and glue.py's own keys (Ctrl/Shift+Enter, Tab, Esc then Tab) work on it.
//
// Keys: Ctrl/Cmd+Enter and Shift+Enter click the cell's Run button (a disabled one does
// nothing); Tab / Shift+Tab indent / dedent; Esc, then Tab or Shift+Tab, leaves the editor
// (CodeMirror's tab focus mode, held here until the next other key: no keyboard trap).
//
// Colours: no style attribute and no <style> element (the page's CSP has style-src 'self').
// CodeMirror's structural rules go into one constructed stylesheet adopted by the document;
// token colours are classes (tok-*) coloured by cells.css, in light and dark.

import {EditorState, Prec} from "@codemirror/state";
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

function runKey(cell) {
  return () => {
    cell.querySelector('button[data-action="run"]')?.click();  // glue.py queues it; disabled: nothing
    return true;  // never a newline
  };
}

function editorFor(area) {
  const cell = area.closest("[data-cell]");
  const label = cell.querySelector(`label[for="${area.id}"]`);
  const run = runKey(cell);
  const view = new EditorView({
    state: EditorState.create({
      doc: area.value,
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
        EditorView.domEventObservers({
          keyup(event, view) {
            if (event.key === "Escape") view.setTabFocusMode(LEAVE_MS);
          },
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) area.value = update.state.doc.toString();
        }),
      ],
    }),
  });
  area.after(view.dom);
  area.addEventListener("input", () => {  // glue.py's Reset: the textarea's text wins
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

function start() {
  if (!("adoptedStyleSheets" in document)) return;  // no CSP-safe way to style it: keep the textareas
  adoptStylesOnDocument();
  for (const area of document.querySelectorAll("textarea[data-cell-code]")) {
    try {
      editorFor(area);
    } catch (error) {
      area.hidden = false;  // this cell keeps its textarea
      console.warn("code editor not started for", area.id, error);
    }
  }
}

start();
