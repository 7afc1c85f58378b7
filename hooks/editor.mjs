// The code editor where a learner types Python: CodeMirror 6 (npm, pinned by package-lock.json),
// bundled by hooks/editor.py with esbuild into one ES module, assets/editor/codemirror.mjs. The
// page never imports this file directly: site/assets/editor/editor.mjs loads the bundle when a code
// cell or exercise comes near the viewport or is touched, and keeps a plain textarea until then.
//
//   const editor = createEditor({ parent, doc: "def f():\n    ...", labelledBy: "prompt-id",
//                                 describedBy: "hint-id", onChange: (text) => {}, onRun: () => {} });
//   editor.value;  editor.value = "x = 1";  editor.setReadOnly(true);  editor.focus();
//
// Keys: Tab and Shift+Tab indent and dedent (indentWithTab); Escape, then Tab within two seconds,
// moves focus out of the editor (CodeMirror's tab-focus mode); Ctrl/Cmd+Enter and Shift+Enter run.
// No key pressed in the editor reaches the page's own shortcuts (Material's n, p, s, / ...).

import { Compartment, EditorState } from "@codemirror/state";
import { drawSelection, EditorView, highlightActiveLine, keymap } from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { bracketMatching, HighlightStyle, indentOnInput, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { pythonLanguage } from "@codemirror/lang-python"; // the language alone: no completion sources
import { tags } from "@lezer/highlight";

// The page's own code colours (Material's variables, lifted to >= 4.5:1 by a11y.css), so the
// editor reads like the highlighted blocks around it, in both palettes.
const colour = (name) => `var(--md-code-hl-${name}-color)`;
const highlight = HighlightStyle.define([
  { tag: [tags.keyword, tags.controlKeyword, tags.definitionKeyword, tags.moduleKeyword, tags.operatorKeyword], color: colour("keyword") },
  { tag: [tags.string, tags.special(tags.string)], color: colour("string") },
  { tag: [tags.number, tags.bool, tags.null], color: colour("number") },
  { tag: tags.comment, color: colour("comment"), fontStyle: "italic" },
  { tag: [tags.function(tags.definition(tags.variableName)), tags.function(tags.variableName)], color: colour("function") },
  { tag: [tags.className, tags.definition(tags.className)], color: colour("constant") },
  { tag: [tags.self, tags.standard(tags.variableName)], color: colour("special") },
  { tag: [tags.operator, tags.punctuation, tags.bracket], color: colour("operator") },
]);

const theme = EditorView.theme({
  "&": {
    color: "var(--md-code-fg-color)",
    backgroundColor: "var(--md-code-bg-color)",
    fontSize: ".85em",
    border: "1px solid var(--md-default-fg-color--lighter)",
    borderRadius: ".2em",
  },
  "&.cm-focused": { outline: "2px solid var(--md-accent-fg-color)", outlineOffset: "2px" },
  ".cm-content": { fontFamily: "var(--md-code-font-family, monospace)", padding: ".6em 0", caretColor: "var(--md-code-fg-color)" },
  ".cm-line": { padding: "0 .8em" },
  ".cm-scroller": { fontFamily: "var(--md-code-font-family, monospace)", lineHeight: "1.5" },
  ".cm-activeLine": { backgroundColor: "var(--md-code-hl-color--light, transparent)" },
  "&.cm-focused .cm-cursor": { borderLeftColor: "var(--md-code-fg-color)" },
  ".cm-selectionBackground, &.cm-focused .cm-selectionBackground": { backgroundColor: "var(--md-code-hl-color, #ffff0080)" },
  "&.cm-editor[aria-readonly] .cm-content, .cm-content[aria-readonly=true]": { opacity: ".85" },
});

/** A Python editor in `parent`; returns {value (get/set), setReadOnly(on), focus(), view}. */
export function createEditor({ parent, doc = "", labelledBy, label, describedBy, onChange, onRun, readOnly = false }) {
  const editable = new Compartment();
  // tabindex on the content, editable or not: a read-only editor is not focusable otherwise, and
  // axe's scrollable-region-focusable rule does not count contenteditable as focusable content
  // (measured: a cell's editor failed it once its wide line made the scroller scroll)
  const lock = (on) => [EditorState.readOnly.of(on), EditorView.editable.of(!on)];
  const run = () => {
    onRun?.();
    return Boolean(onRun);
  };
  const attributes = { spellcheck: "false", autocorrect: "off", autocapitalize: "off", translate: "no", tabindex: "0" };
  if (labelledBy) attributes["aria-labelledby"] = labelledBy;
  if (label) attributes["aria-label"] = label;
  if (describedBy) attributes["aria-describedby"] = describedBy;
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        history(),
        drawSelection(),
        highlightActiveLine(),
        indentOnInput(),
        bracketMatching(),
        indentUnit.of("    "),
        EditorState.tabSize.of(4),
        pythonLanguage,
        syntaxHighlighting(highlight),
        theme,
        keymap.of([{ key: "Mod-Enter", run }, { key: "Shift-Enter", run }, indentWithTab, ...defaultKeymap, ...historyKeymap]),
        EditorView.contentAttributes.of(attributes),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange?.(update.state.doc.toString());
        }),
        editable.of(lock(readOnly)),
      ],
    }),
  });
  // Material's shortcuts (n, p, s, /, ...) listen on window and skip a focused contenteditable; a
  // read-only editor is not one, so keys stop here whatever the editor's state.
  view.dom.addEventListener("keydown", (event) => event.stopPropagation());
  return {
    view,
    get value() {
      return view.state.doc.toString();
    },
    set value(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    setReadOnly(on) {
      view.dispatch({ effects: editable.reconfigure(lock(on)) });
    },
    focus() {
      view.focus();
    },
  };
}
