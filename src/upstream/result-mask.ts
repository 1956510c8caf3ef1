/**
 * @module A tool's result with the server's credentials masked out of it (a tool that echoes
 * the request it got hands back the bearer token or a `headers` secret): every string in it,
 * text blocks, structuredContent at any depth (keys too), `_meta`, an isError result alike.
 * Base64 payloads (image and audio `data`, a resource's `blob`) are left whole: a credential
 * is never spelled out in them, and masking would corrupt them. Copy on write: what holds no
 * credential is returned as it is, and a server without credentials is never walked.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SecretMask } from './secret-mask.ts';

type Mask = (text: string) => string;
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `value` with every string in it masked; `value` itself when nothing changed. Recursive:
 * a result is at most MAX_UPSTREAM_RESULT_DEPTH deep (guarded-transport.ts refuses deeper).
 */
export function maskValue(value: unknown, mask: Mask): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return maskArray(value, (item) => maskValue(item, mask));
  if (isObject(value)) return maskObject(value, mask);
  return value;
}

function maskArray(items: readonly unknown[], each: (item: unknown) => unknown): unknown[] {
  let copy: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const masked = each(items[i]);
    if (masked !== items[i]) {
      copy ??= items.slice();
      copy[i] = masked;
    }
  }
  return copy ?? (items as unknown[]);
}

/** `object` with its keys and values masked, but `keep`'s value left as it is. */
function maskObject(object: Json, mask: Mask, keep?: string): Json {
  const keys = Object.keys(object);
  let entries: Array<[string, unknown]> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const value = object[key];
    const maskedKey = key === keep ? key : mask(key);
    const maskedValue = key === keep ? value : maskValue(value, mask);
    if (!entries && (maskedKey !== key || maskedValue !== value)) {
      entries = keys.slice(0, i).map((k): [string, unknown] => [k, object[k]]);
    }
    entries?.push([maskedKey, maskedValue]);
  }
  // fromEntries defines own properties: a `__proto__` key stays a key.
  return entries ? Object.fromEntries(entries) : object;
}

/** One content block: its base64 payload, if it has one, left whole. */
function maskBlock(block: unknown, mask: Mask): unknown {
  if (!isObject(block)) return maskValue(block, mask);
  if (block.type === 'image' || block.type === 'audio') return maskObject(block, mask, 'data');
  if (block.type === 'resource' && isObject(block.resource)) {
    const resource = maskObject(block.resource, mask, 'blob');
    const rest = maskObject(block, mask, 'resource');
    return resource === block.resource && rest === block ? block : { ...rest, resource };
  }
  return maskObject(block, mask);
}

/** `result` with `secrets`' credentials masked out of it; `result` itself when it holds none. */
export function maskResult(
  result: CallToolResult,
  secrets: Pick<SecretMask, 'hasCredentials' | 'maskCredentials'>,
): CallToolResult {
  if (!secrets.hasCredentials) return result;
  const mask: Mask = (text) => secrets.maskCredentials(text);
  const blocks: unknown = result.content;
  const content = Array.isArray(blocks)
    ? maskArray(blocks, (block) => maskBlock(block, mask))
    : blocks;
  const rest = maskObject(result, mask, 'content');
  if (content === blocks && rest === result) return result;
  return { ...rest, ...('content' in result ? { content } : {}) } as CallToolResult;
}
