import { describe, expect, it } from 'vitest';
import { cutText, fitEnvelope, jsonBytes } from './fit-output.ts';
import type { Envelope } from './types.ts';

const inJson = (s: string) => jsonBytes(s) - 2;

describe('cutText', () => {
  it.each([
    ['ASCII', 'x'.repeat(10_000), 1000],
    ['two-byte characters', 'é'.repeat(10_000), 1000],
    ['surrogate pairs', '😀'.repeat(10_000), 1001],
    ['characters JSON escapes', '"\\\n\u0001'.repeat(10_000), 999],
    ['a room smaller than one escaped character', '\u0001'.repeat(100), 45],
  ])('cuts %s to the room with a marker naming both sizes', (_name, text, room) => {
    const cut = cutText(text, room);
    expect(inJson(cut)).toBeLessThanOrEqual(room);
    const marker = /… \[cut: (\d+) bytes -> (\d+) bytes\]$/.exec(cut)!;
    expect(Number(marker[1])).toBe(Buffer.byteLength(text));
    const kept = cut.slice(0, marker.index);
    expect(Number(marker[2])).toBe(Buffer.byteLength(kept));
    expect(text.startsWith(kept)).toBe(true);
    expect(kept).not.toMatch(/[\ud800-\udbff]$/);
  });
  it('returns a text that fits as it is', () => {
    expect(cutText('short', 5)).toBe('short');
  });
});

describe('fitEnvelope', () => {
  const logs = Array.from({ length: 100 }, (_, i) => `${i} ${'l'.repeat(500)}`);
  it.each<[string, Envelope]>([
    ['a huge message', { ok: false, error: { code: 'RUNTIME_ERROR', message: 'm'.repeat(1e6) } }],
    [
      'a huge message, stack and logs',
      {
        ok: false,
        error: { code: 'RUNTIME_ERROR', message: 'm'.repeat(1e6), stack: 's'.repeat(1e6) },
        logs,
      },
    ],
    [
      'a short message beside huge logs',
      { ok: false, error: { code: 'RUNTIME_ERROR', message: 'short', stack: '' }, logs },
    ],
    ['a value beside huge logs', { ok: true, value: 'v'.repeat(2000), logs }],
  ])('keeps %s within the cap', (_name, envelope) => {
    const fitted = fitEnvelope(envelope, 4096);
    expect(jsonBytes(fitted)).toBeLessThanOrEqual(4096);
    if (fitted.ok) expect(fitted.value).toEqual((envelope as { value: unknown }).value);
    else expect(fitted.error.message.length).toBeGreaterThan(0);
    if (envelope.logs && fitted.logs) {
      expect(fitted.logs.at(-1)).toMatch(/^… \[cut: \d+ of 100 log lines\]$/);
    }
  });
  it('leaves an envelope that fits untouched', () => {
    const envelope: Envelope = { ok: false, error: { code: 'X', message: 'y' }, logs: ['a'] };
    expect(fitEnvelope(envelope, 4096)).toBe(envelope);
  });
  it('gives the message at least half of the room and keeps the short one whole', () => {
    const big = fitEnvelope(
      { ok: false, error: { code: 'E', message: 'm'.repeat(1e5), stack: 's'.repeat(1e5) }, logs },
      4096,
    );
    expect(big.ok || inJson(big.error.message)).toBeGreaterThanOrEqual(1900);
    const short = fitEnvelope({ ok: false, error: { code: 'E', message: 'short' }, logs }, 4096);
    expect(short.ok || short.error.message).toBe('short');
  });
});
