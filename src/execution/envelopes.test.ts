import { describe, expect, it } from 'vitest';
import { cutForActivity, cutJsonForActivity } from './activity/cut.ts';
import { boundedOutcome, syncEnvelope, syncEnvelopeJson } from './envelopes.ts';

const RESULTS = [
  { content: [{ type: 'text', text: '{"message":"x"}' }] },
  { content: [{ type: 'text', text: 'failed: é \u2028 "quoted"' }], isError: true },
  JSON.parse('{"content":[],"structuredContent":{"__proto__":{"a":1},"n":1e21,"s":"\\ud800"}}'),
  { content: [{ type: 'text', text: 'x'.repeat(20_000) }], _meta: { page: 2 } },
];

describe('the sync envelope encoded once', () => {
  it('is byte for byte JSON.stringify(envelope) for results, tool errors and failures', () => {
    for (const result of RESULTS) {
      const bounded = boundedOutcome({ ok: true, result }, 1 << 20, 'fixture.echo');
      const envelope = syncEnvelope(bounded.outcome);
      expect(syncEnvelopeJson(envelope, bounded.json)).toBe(JSON.stringify(envelope));
    }
    const tooLarge = boundedOutcome({ ok: true, result: RESULTS[3]! }, 100, 'fixture.echo');
    expect(tooLarge.json).toBeUndefined();
    const refused = syncEnvelope(tooLarge.outcome);
    expect(syncEnvelopeJson(refused, tooLarge.json)).toBe(JSON.stringify(refused));
    const failed = syncEnvelope({ ok: false, code: 'UPSTREAM_TIMEOUT', message: 'late' });
    expect(syncEnvelopeJson(failed, undefined)).toBe(JSON.stringify(failed));
  });

  it('reads the result once for its size, the reply and the history cut', () => {
    let encodings = 0;
    const text = { type: 'text', text: 'y'.repeat(10_000) };
    const result = {
      content: [
        {
          toJSON() {
            encodings++;
            return text;
          },
        },
      ],
    } as never;
    const bounded = boundedOutcome({ ok: true, result }, 1 << 20, 'fixture.echo');
    const envelope = syncEnvelope(bounded.outcome);
    const json = syncEnvelopeJson(envelope, bounded.json);
    const kept = cutJsonForActivity(envelope, json);
    expect(encodings).toBe(1);
    expect(JSON.parse(json)).toEqual({ ok: true, result: { content: [text] } });
    expect(kept).toBe(cutForActivity(envelope));
    expect(String(kept)).toMatch(/…\[cut: \d+ bytes of JSON, first 8192 kept\]$/);
  });

  it('keeps a small answer as the value itself, as cutForActivity does', () => {
    const envelope = syncEnvelope({ ok: true, result: RESULTS[0]! });
    expect(cutJsonForActivity(envelope, JSON.stringify(envelope))).toBe(envelope);
  });
});
