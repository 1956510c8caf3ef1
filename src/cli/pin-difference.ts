/** @module The difference a held tool's approval would accept, as `codemux tools approve` shows it before asking. */
import type { HeldTool } from '../execution/index.ts';
import { PINNED_FIELDS } from '../execution/pinned-definition.ts';

const json = (value: unknown) =>
  value === undefined ? '(absent)' : JSON.stringify(value, null, 2);

const indent = (text: string, mark: string) =>
  text
    .split('\n')
    .map((line) => `    ${mark} ${line}`)
    .join('\n');

/** What approving `held` pins: every field of a new tool, or each changed field before and after. */
export function pinDifference(held: HeldTool): string {
  const name = `${held.server}.${held.tool}`;
  const lines = [
    held.change === 'new'
      ? `${name}: new, never approved (sha256 ${held.sha256})`
      : `${name}: changed since it was approved: ${held.fields.join(', ')} (sha256 ${held.sha256})`,
  ];
  for (const field of PINNED_FIELDS) {
    const after = held.after[field];
    if (held.before === null) {
      if (after !== undefined) lines.push(`  ${field}:`, indent(json(after), '+'));
      continue;
    }
    if (!held.fields.includes(field)) continue;
    lines.push(`  ${field}:`, indent(json(held.before[field]), '-'), indent(json(after), '+'));
  }
  return `${lines.join('\n')}\n`;
}
