import { describe, expect, it } from 'vitest';
import { activityRecord } from '../../store/activity-store.contract.ts';
import {
  ACTIVITY_CODE_MAX_BYTES,
  ACTIVITY_LOGS_MAX_BYTES,
  ACTIVITY_RECORD_MAX_BYTES,
  boundRecord,
  cutLogs,
} from './bound.ts';
import { cutText } from './cut.ts';

const MIB = 1_048_576;
const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

describe('boundRecord', () => {
  it.each([
    ['rejected', 4 * MIB, 8192],
    ['blocked', 100_000, 8192],
    ['rejected', 100_000, 8192],
    // Over the source limit, refused in execute's own words (ResourceLimitExceeded, an error).
    ['error', 300_000, 8192],
    ['success', 100_000, ACTIVITY_CODE_MAX_BYTES],
    ['error', 100_000, ACTIVITY_CODE_MAX_BYTES],
  ] as const)(
    'keeps the code of a %s execution of %i bytes to %i bytes with a marker',
    (status, size, kept) => {
      const r = boundRecord(activityRecord({ id: 'a', status, code: 'x'.repeat(size) }));
      expect(r.code).toBe(`${'x'.repeat(kept)}…[cut: ${size} bytes, first ${kept} kept]`);
    },
  );

  it('keeps the code of a program that ran whole up to its bound', () => {
    const code = `// ${'é'.repeat(10_000)}\n1`;
    expect(boundRecord(activityRecord({ id: 'a', code })).code).toBe(code);
  });

  it('cuts error.message at 8 KiB with a marker, keeping the code', () => {
    const r = boundRecord(
      activityRecord({
        id: 'a',
        status: 'error',
        error: { code: 'RUNTIME_ERROR', message: `Error: ${'m'.repeat(300_000)}` },
      }),
    );
    expect(r.error?.code).toBe('RUNTIME_ERROR');
    expect(r.error?.message).toMatch(/^Error: m+…\[cut: 300007 bytes, first 8192 kept\]$/);
    expect(Buffer.byteLength(r.error!.message.split('…')[0]!)).toBe(8192);
  });

  it('keeps logs to their total bound, the rest said by a marker line', () => {
    const logs = Array.from({ length: 128 }, (_, i) => `${i} ${'l'.repeat(4000)}`);
    const kept = boundRecord(activityRecord({ id: 'a', logs })).logs;
    expect(kept.slice(0, 2)).toEqual(logs.slice(0, 2));
    expect(kept.at(-1)).toBe(
      `…[cut: ${logs.reduce((n, l) => n + l.length, 0)} bytes in 128 lines, first ${ACTIVITY_LOGS_MAX_BYTES} kept]`,
    );
    const text = kept.slice(0, -1).reduce((n, l) => n + Buffer.byteLength(l), 0);
    expect(text).toBe(ACTIVITY_LOGS_MAX_BYTES);
    expect(cutLogs(['a', 'b'])).toEqual(['a', 'b']);
  });

  it('cuts names a request made up (script, language, server, tool)', () => {
    const long = 'n'.repeat(MIB);
    const r = boundRecord(
      activityRecord({ id: 'a', script: long, language: long, server: long, tool: long }),
    );
    for (const field of ['script', 'language', 'server', 'tool'] as const)
      expect(r[field]).toMatch(/^n{1024}…\[cut: 1048576 bytes, first 1024 kept\]$/);
  });

  it.each([
    ['text that JSON escapes six times over', '\u0001'],
    ['quotes and backslashes', '"\\'],
    ['four-byte characters', '😀'],
    ['plain text', 'x'],
  ])('keeps the whole record under its bound with every field full: %s', (_name, unit) => {
    const fill = (bytes: number) => unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)));
    const record = activityRecord({
      id: 'a',
      status: 'error',
      code: fill(256 * 1024),
      // Already cut values arrive as strings holding JSON text.
      input: `${fill(8192)}…[cut: 9000000 bytes of JSON, first 8192 kept]`,
      args: fill(8192),
      response: { ok: false, error: { code: 'X', message: fill(8000) } },
      error: { code: 'RUNTIME_ERROR', message: fill(300_000) },
      logs: Array.from({ length: 128 }, () => fill(4096)),
      server: fill(5000),
      tool: fill(5000),
      script: fill(5000),
      language: fill(5000),
    });
    const r = boundRecord(record);
    expect(jsonBytes(r)).toBeLessThanOrEqual(ACTIVITY_RECORD_MAX_BYTES);
    expect(JSON.stringify(r)).toMatch(/\[cut: /);
    // What is not text stays as it was.
    expect(r).toMatchObject({ id: 'a', status: 'error', kind: 'execution', duration_ms: 1.5 });
    expect(Array.isArray(r.logs)).toBe(true);
    expect(typeof r.error?.message).toBe('string');
  });

  it('leaves a record that fits as it was', () => {
    const record = activityRecord({ id: 'a', logs: ['one', 'two'] });
    expect(boundRecord(record)).toEqual(record);
  });
});

describe('cutText', () => {
  it('cuts on a character boundary by UTF-8 bytes', () => {
    expect(cutText('ééé', 5)).toBe('éé…[cut: 6 bytes, first 5 kept]');
    expect(cutText('short', 5)).toBe('short');
  });
});
