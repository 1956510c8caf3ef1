import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { ServerConfig } from '../config/index.ts';
import { maskResult } from './result-mask.ts';
import { MASK, SecretMask } from './secret-mask.ts';

const config = (extra: Partial<ServerConfig>) =>
  ({ name: 's', env: {}, args: [], headers: {}, ...extra }) as ServerConfig;

const TOKEN = 'tok-4b1d9e2a';
const DATA_DIR = '/srv/data/of/the/server';

function secrets(): SecretMask {
  const mask = new SecretMask().configure(
    config({
      env: { API_TOKEN: TOKEN, DATA_DIR, MODE: 'crash' },
      headers: { Authorization: 'Bearer hdr-bearer-77' },
    }),
  );
  mask.credentialSent('oauth-access-1234');
  return mask;
}

describe('maskResult', () => {
  it('masks credentials in structuredContent at any depth, in keys and arrays, and keeps the rest', () => {
    const result: CallToolResult = {
      content: [{ type: 'text', text: 'see structuredContent' }],
      structuredContent: {
        n: 7,
        ok: true,
        none: null,
        request: {
          headers: { authorization: 'Bearer oauth-access-1234', 'x-dir': DATA_DIR },
          seen: [[{ deep: [`token=${TOKEN}`, 'plain'] }], 3],
          [TOKEN]: 'a key that is a credential',
          bare: 'hdr-bearer-77',
        },
      },
    };
    const masked = maskResult(result, secrets());
    expect(masked.structuredContent).toEqual({
      n: 7,
      ok: true,
      none: null,
      request: {
        headers: { authorization: `Bearer ${MASK}`, 'x-dir': DATA_DIR },
        seen: [[{ deep: [`token=${MASK}`, 'plain'] }], 3],
        [MASK]: 'a key that is a credential',
        bare: MASK,
      },
    });
    expect(masked.content).toBe(result.content);
    // The upstream's result is never changed in place.
    expect(JSON.stringify(result)).toContain(TOKEN);
  });

  it("masks an isError result's text, and leaves a long plain env value and short words whole", () => {
    const result: CallToolResult = {
      isError: true,
      content: [{ type: 'text', text: `failed in crash mode under ${DATA_DIR} with ${TOKEN}` }],
    };
    expect(maskResult(result, secrets())).toEqual({
      isError: true,
      content: [{ type: 'text', text: `failed in crash mode under ${DATA_DIR} with ${MASK}` }],
    });
  });

  it('leaves base64 payloads whole and masks the text around them', () => {
    const blob = Buffer.from(TOKEN).toString('base64');
    const result: CallToolResult = {
      content: [
        { type: 'image', data: TOKEN, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: `file:///x?k=${TOKEN}`, blob: TOKEN } },
        { type: 'resource', resource: { uri: 'file:///y', text: TOKEN } },
        { type: 'resource', resource: { uri: 'file:///z', blob } },
      ],
    };
    const masked = maskResult(result, secrets());
    expect(masked.content).toEqual([
      { type: 'image', data: TOKEN, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: `file:///x?k=${MASK}`, blob: TOKEN } },
      { type: 'resource', resource: { uri: 'file:///y', text: MASK } },
      { type: 'resource', resource: { uri: 'file:///z', blob } },
    ]);
    expect(masked.content[3]).toBe(result.content[3]);
  });

  it('returns the very result when it holds no credential, or the server has none', () => {
    const result: CallToolResult = {
      content: [{ type: 'text', text: DATA_DIR }],
      structuredContent: { a: { b: ['c', DATA_DIR] } },
    };
    expect(maskResult(result, secrets())).toBe(result);
    const withToken: CallToolResult = { content: [{ type: 'text', text: TOKEN }] };
    const none = new SecretMask().configure(config({ env: { DATA_DIR } }));
    expect(none.hasCredentials).toBe(false);
    expect(maskResult(withToken, none)).toBe(withToken);
  });

  it('keeps a __proto__ key a plain key', () => {
    const result = JSON.parse(
      `{"content":[],"structuredContent":{"__proto__":{"polluted":"${TOKEN}"}}}`,
    ) as CallToolResult;
    const masked = maskResult(result, secrets());
    const structured = masked.structuredContent as Record<string, unknown>;
    expect(Object.getPrototypeOf(structured)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(structured, '__proto__')?.value).toEqual({
      polluted: MASK,
    });
  });
});
