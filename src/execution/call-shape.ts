/**
 * @module The host's own check of what a guest sent: the prelude validates first, but a
 * getter, a Proxy or a `toJSON` on a prototype can change a value between that check and
 * the JSON text that crosses to the host, so the limits are judged again on that text.
 * Messages are the prelude's (the API reference's INVALID_ARGS wording).
 */
import {
  BATCH_PARALLEL_RANGE,
  type BatchRequest,
  type CallRequest,
  MAX_BATCH_SIZE,
} from '../sandbox/index.ts';

export type Shape<T> = { ok: true; value: T } | { ok: false; message: string };

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '';

function parse(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

/** One {server, tool, args} as sent; `where` prefixes the message ("call_tool: ", "call_tools: element 3: "). */
function element(raw: unknown, where: string, shapeHint: string): Shape<CallRequest> {
  if (!isObject(raw)) return { ok: false, message: `${where}must be an object ${shapeHint}` };
  if (!nonEmpty(raw.server))
    return { ok: false, message: `${where}server must be a non-empty string` };
  if (!nonEmpty(raw.tool)) return { ok: false, message: `${where}tool must be a non-empty string` };
  const args = raw.args === undefined ? {} : raw.args;
  if (!isObject(args)) return { ok: false, message: `${where}args must be an object` };
  return { ok: true, value: { server: raw.server, tool: raw.tool, args } };
}

/** A call_tool / tools.* request as the host received it. */
export function callShape(json: string, fn: string): Shape<CallRequest> {
  return element(parse(json), `${fn}: `, '{server, tool, args}');
}

/** A call_tools batch as the host received it: at most 100 elements, max_parallel 1-32, each element's shape. */
export function batchShape(json: string): Shape<BatchRequest> {
  const p = 'call_tools: ';
  const raw = parse(json);
  const requests = isObject(raw) ? raw.requests : undefined;
  if (!Array.isArray(requests)) {
    return { ok: false, message: `${p}requests must be an array of {server, tool, args}` };
  }
  const mp = (raw as Record<string, unknown>).max_parallel;
  const { min, max } = BATCH_PARALLEL_RANGE;
  if (
    mp !== undefined &&
    !(Number.isInteger(mp) && (mp as number) >= min && (mp as number) <= max)
  ) {
    return {
      ok: false,
      message: `${p}options.max_parallel must be an integer from ${min} to ${max}`,
    };
  }
  if (requests.length > MAX_BATCH_SIZE) {
    return {
      ok: false,
      message: `${p}the batch has ${requests.length} elements; at most ${MAX_BATCH_SIZE} are allowed`,
    };
  }
  const checked: CallRequest[] = [];
  for (let i = 0; i < requests.length; i++) {
    const one = element(requests[i], `${p}element ${i}: `, '{server, tool, args}');
    if (!one.ok) return one;
    checked.push(one.value);
  }
  return {
    ok: true,
    value: { requests: checked, ...(mp === undefined ? {} : { max_parallel: mp as number }) },
  };
}
