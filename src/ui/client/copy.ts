/**
 * @module Copy buttons: the text of an element to the clipboard, or, where the browser allows no
 * clipboard access (http on a host other than localhost), the text selected for Ctrl+C.
 */
import { h, say } from './dom.ts';

/** Selects the whole text of `element`, so the user can copy it with the keyboard. */
function selectText(element: HTMLElement): void {
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = window.getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
}

/** Copies `source`'s text; says "Copied." or, failing that, selects it and says how to copy. */
export async function copyText(source: HTMLElement): Promise<void> {
  const text = (source.textContent ?? '').trim();
  // navigator.clipboard is undefined outside a secure context; writeText may still be refused.
  if (window.isSecureContext && navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      say('Copied.');
      return;
    } catch {
      // Refused (no permission, document not focused): fall back to selecting it.
    }
  }
  selectText(source);
  say('The browser allows no clipboard access here: the text is selected, press Ctrl+C to copy.');
}

/** A "Copy" button for `source`'s text; `label` names it apart from others on the page. */
export function copyButton(source: HTMLElement, label: string): HTMLButtonElement {
  return h(
    'button',
    {
      type: 'button',
      class: 'secondary copy',
      'aria-label': label,
      onclick: () => copyText(source),
    },
    'Copy',
  );
}

/**
 * Wires server-rendered `<button data-copy="ID" hidden>` buttons to copy the element with that
 * id, and shows them: without this script they would do nothing, so they stay hidden.
 */
export function wireCopyButtons(root: ParentNode): void {
  for (const button of root.querySelectorAll<HTMLButtonElement>('button[data-copy]')) {
    const source = document.getElementById(button.dataset.copy ?? '');
    if (!source) continue;
    button.addEventListener('click', () => copyText(source));
    button.hidden = false;
  }
}
