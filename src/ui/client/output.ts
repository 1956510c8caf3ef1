/** @module Displayed output is capped (Vectoralix: 128 KB) with a marker; cut markers are shown marked. */
import { h } from './dom.ts';

export const DISPLAY_CAP_BYTES = 128 * 1024;
export const DISPLAY_CUT_MARKER = '… [display cut at 128 KB]';

/** `value` as display text: strings as they are, anything else as indented JSON. */
export function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return 'undefined';
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** Cuts `s` to the display cap (by UTF-8 bytes), with the marker when it was cut. */
export function capped(s: string): { text: string; cut: boolean } {
  const bytes = new TextEncoder().encode(s);
  if (bytes.length <= DISPLAY_CAP_BYTES) return { text: s, cut: false };
  const head = new TextDecoder().decode(bytes.slice(0, DISPLAY_CAP_BYTES)).replace(/\uFFFD$/, '');
  return { text: head, cut: true };
}

/** Markers the gateway puts where it cut a stored or logged value. */
const STORED_CUT = /(…\s?\[cut: [^\]]*\])/;

/** A <pre> holding `value` capped for display; cut places get a visible <mark>. */
export function outputBlock(value: unknown, label?: string): HTMLPreElement {
  const { text: shown, cut } = capped(text(value));
  const pre = h('pre', { class: 'output', tabindex: 0, 'aria-label': label });
  const parts = shown.split(STORED_CUT);
  parts.forEach((part, i) => {
    if (i % 2 === 1) pre.append(h('mark', { class: 'cut' }, part));
    else if (part) pre.append(part);
  });
  if (cut) pre.append(h('mark', { class: 'cut' }, `\n${DISPLAY_CUT_MARKER}`));
  return pre;
}
