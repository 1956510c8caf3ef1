import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../config/index.ts';
import { canonicalJson } from '../util/canonical-json.ts';
import { definitionOf, heldMessage, pinHash } from './pinned-definition.ts';

describe('tool pins', () => {
  it('hashes the canonical JSON: key order does not matter, any pinned field does', () => {
    const a = definitionOf({
      name: 't',
      description: 'd',
      inputSchema: { type: 'object', properties: { b: { type: 'string' }, a: { type: 'number' } } },
      annotations: { readOnlyHint: true, destructiveHint: false },
    });
    const b = definitionOf({
      annotations: { destructiveHint: false, readOnlyHint: true },
      inputSchema: { properties: { a: { type: 'number' }, b: { type: 'string' } }, type: 'object' },
      description: 'd',
      name: 't',
    });
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson({ z: [{ y: 1, x: undefined, w: 2 }], a: null })).toBe(
      '{"a":null,"z":[{"w":2,"y":1}]}',
    );
    expect(pinHash(a)).toBe(pinHash(b));
    expect(pinHash(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(pinHash({ ...a, title: 'T' })).not.toBe(pinHash(a));
    expect(pinHash({ ...a, annotations: { readOnlyHint: false } })).not.toBe(pinHash(a));
  });

  it('names the changed fields in the contract order', () => {
    const held = {
      server: 'gh',
      tool: 'push',
      change: 'changed' as const,
      fields: ['description' as const, 'inputSchema' as const],
      before: null,
      after: { name: 'push', inputSchema: {} },
      sha256: pinHash({ name: 'push', inputSchema: {} }),
    };
    expect(heldMessage(held, 'tofu')).toBe(
      'gh.push changed since it was approved (description, inputSchema); approve it with `codemux tools approve gh.push`',
    );
    expect(heldMessage({ ...held, change: 'new', fields: [] }, 'tofu')).toBe(
      "gh.push is new since the server's tools were pinned; approve it with `codemux tools approve gh.push`",
    );
  });

  it('reads tool_pinning from the config: tofu by default, an error naming the field', () => {
    const resolve = (raw: unknown) => resolveConfig(raw, { baseDir: '/tmp', source: 'cfg.json' });
    expect(resolve({}).toolPinning).toBe('tofu');
    expect(resolve({ tool_pinning: 'strict' }).toolPinning).toBe('strict');
    expect(() => resolve({ tool_pinning: 'sometimes' })).toThrow(
      'cfg.json: field "tool_pinning" must be one of "tofu", "strict", "off" (the default is "tofu")',
    );
  });
});
