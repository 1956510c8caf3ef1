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

/** Sizes and fonts inside the shadow root, where the page's stylesheet does not reach. */
const theme = EditorView.theme({
  '&': { fontSize: '13px', minHeight: '10rem', maxHeight: '60vh' },
  '&.cm-focused': { outline: 'none' },
  '.cm-scroller': {
    fontFamily: "ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace",
    minHeight: '10rem',
  },
  '.cm-gutters': { backgroundColor: '#f6f6f8', color: '#5f6368', borderRight: '1px solid #d9d9de' },
});

export interface EditorOptions {
  typescript?: boolean;
  /** Shown highlighted, selectable and focusable, but not editable (aria-readonly). */
  readOnly?: boolean;
}

/**
 * Mounts an editor into `parent`; its accessible name is `parent.dataset.label`. It lives in
 * a shadow root: there CodeMirror's styles are constructable stylesheets, which the CSP's
 * `style-src 'self'` allows, where a <style> element would be refused.
 */
export function codeEditor(
  parent: HTMLElement,
  doc: string,
  { typescript = false, readOnly = false }: EditorOptions = {},
): CodeEditor {
  const root = parent.attachShadow({ mode: 'open' });
  const view = new EditorView({
    parent: root,
    root,
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
        theme,
        EditorState.readOnly.of(readOnly),
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
