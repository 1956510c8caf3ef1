/**
 * @module Bounds one activity record: each text field cut at its own bound, then the whole
 * record's JSON kept under ACTIVITY_RECORD_MAX_BYTES, every cut marked.
 */
import { MAX_SOURCE_BYTES } from '../../config/defaults.ts';
import type { ActivityRecord } from '../../store/index.ts';
import { ACTIVITY_VALUE_MAX_BYTES, cutText, utf8Head } from './cut.ts';

/** A stored record's JSON (every field, as the list and the stream send it) stays under this. */
export const ACTIVITY_RECORD_MAX_BYTES = 65_536;
/**
 * `code` of an execution that ran; one that did not (refused: `rejected`, `blocked`; or over
 * the source limit, which no surface runs) keeps ACTIVITY_VALUE_MAX_BYTES.
 */
export const ACTIVITY_CODE_MAX_BYTES = 32_768;
/** `error.message`. */
export const ACTIVITY_MESSAGE_MAX_BYTES = ACTIVITY_VALUE_MAX_BYTES;
/** `logs`: the lines together (UTF-8); past it the rest is one marker line. */
export const ACTIVITY_LOGS_MAX_BYTES = ACTIVITY_VALUE_MAX_BYTES;
/** `server`, `tool`, `script`, `language`, `caller` and `error.code`: names, never long. */
export const ACTIVITY_NAME_MAX_BYTES = 1024;

const NAME_FIELDS = ['server', 'tool', 'script', 'language', 'caller'] as const;

/** The lines while they fit in maxBytes together; the line that does not is cut, then a marker says what went. */
export function cutLogs(logs: readonly string[], maxBytes = ACTIVITY_LOGS_MAX_BYTES): string[] {
  let used = 0;
  const kept: string[] = [];
  for (let i = 0; i < logs.length; i++) {
    const line = logs[i]!;
    const bytes = Buffer.byteLength(line);
    if (used + bytes <= maxBytes) {
      kept.push(line);
      used += bytes;
      continue;
    }
    if (used < maxBytes) kept.push(utf8Head(line, maxBytes - used));
    const total = logs.reduce((n, l) => n + Buffer.byteLength(l), 0);
    kept.push(`…[cut: ${total} bytes in ${logs.length} lines, first ${maxBytes} kept]`);
    return kept;
  }
  return kept;
}

/** Each field within its own bound. */
function cutFields<R extends ActivityRecord>(record: R): R {
  const neverRan =
    record.status === 'rejected' ||
    record.status === 'blocked' ||
    (record.code !== null && Buffer.byteLength(record.code) > MAX_SOURCE_BYTES);
  const out: R = { ...record };
  for (const field of NAME_FIELDS) {
    const value = out[field];
    if (typeof value === 'string') out[field] = cutText(value, ACTIVITY_NAME_MAX_BYTES) as never;
  }
  if (out.code !== null)
    out.code = cutText(out.code, neverRan ? ACTIVITY_VALUE_MAX_BYTES : ACTIVITY_CODE_MAX_BYTES);
  if (out.error)
    out.error = {
      code: cutText(out.error.code, ACTIVITY_NAME_MAX_BYTES),
      message: cutText(out.error.message, ACTIVITY_MESSAGE_MAX_BYTES),
    };
  out.logs = cutLogs(out.logs);
  return out;
}

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? 'null');

/** The longest head of `text` whose marked form takes at most `maxJsonBytes` as a JSON string. */
function fitText(text: string, maxJsonBytes: number): string {
  const marker = (kept: number) =>
    `…[cut: ${Buffer.byteLength(text)} bytes, first ${kept} kept to fit the record in ${ACTIVITY_RECORD_MAX_BYTES} bytes]`;
  const form = (units: number) => {
    const head = text.slice(0, units).replace(/[\uD800-\uDBFF]$/, '');
    return `${head}${marker(Buffer.byteLength(head))}`;
  };
  // Binary search over UTF-16 units: escaping makes a unit cost 1 to 6 bytes of JSON.
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (jsonBytes(form(mid)) <= maxJsonBytes) lo = mid;
    else hi = mid - 1;
  }
  return form(lo);
}

type Shrinkable =
  | 'code'
  | 'input'
  | 'args'
  | 'response'
  | 'logs'
  | 'error'
  | (typeof NAME_FIELDS)[number];
const SHRINKABLE: readonly Shrinkable[] = [
  'code',
  'input',
  'args',
  'response',
  'logs',
  'error',
  ...NAME_FIELDS,
];

/** `record[field]` made to take about `maxJsonBytes` of JSON, keeping its type where the contract fixes one. */
function shrink(record: ActivityRecord, field: Shrinkable, maxJsonBytes: number): void {
  const budget = Math.max(0, maxJsonBytes);
  switch (field) {
    case 'logs':
      record.logs = [fitText(record.logs.join('\n'), budget)];
      return;
    case 'error':
      if (record.error) {
        const rest = jsonBytes({ ...record.error, message: '' });
        record.error = { ...record.error, message: fitText(record.error.message, budget - rest) };
      }
      return;
    case 'input':
    case 'args':
    case 'response': {
      const value = record[field];
      record[field] = fitText(typeof value === 'string' ? value : JSON.stringify(value), budget);
      return;
    }
    default: {
      const value = record[field];
      if (typeof value === 'string') record[field] = fitText(value, budget) as never;
    }
  }
}

/**
 * The record with every field within its bound and its JSON within ACTIVITY_RECORD_MAX_BYTES:
 * fields are cut on their own first; a record still over (text that JSON escapes heavily) has
 * its largest fields cut further, largest first, each cut marked.
 */
export function boundRecord<R extends ActivityRecord>(record: R): R {
  const out = cutFields(record);
  // Most records are far under: a UTF-16 unit is at most 3 bytes of UTF-8.
  if (JSON.stringify(out).length * 3 <= ACTIVITY_RECORD_MAX_BYTES) return out;
  for (let round = 0; round < SHRINKABLE.length; round++) {
    const over = jsonBytes(out) - ACTIVITY_RECORD_MAX_BYTES;
    if (over <= 0) return out;
    let largest: Shrinkable = 'code';
    let largestBytes = -1;
    for (const field of SHRINKABLE) {
      const bytes = out[field] === null ? 0 : jsonBytes(out[field]);
      if (bytes > largestBytes) {
        largest = field;
        largestBytes = bytes;
      }
    }
    shrink(out, largest, largestBytes - over);
  }
  return out;
}
