/** @module A CodeMirror 6 editor for code fields, named for screen readers by its label. */
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { javascript } from '@codemirror/lang-javascript';
import {
  bracketMatching,
  defaultHighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from '@codemirror/language';
import { EditorState } from '@codemirror/state';
import { EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';

export interface CodeEditor {
  get(): string;
  set(code: string): void;
}

/** Mounts an editor into `parent`; its accessible name is `parent.dataset.label`. */
export function codeEditor(parent: HTMLElement, doc: string, typescript = false): CodeEditor {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(),
        history(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        javascript({ typescript }),
        // Tab indents; Escape then Tab leaves the editor (CodeMirror's keyboard escape hatch).
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorView.contentAttributes.of({ 'aria-label': parent.dataset.label ?? 'Code' }),
      ],
    }),
  });
  return {
    get: () => view.state.doc.toString(),
    set: (code) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: code } }),
  };
}
