import { describe, expect, it } from 'vitest';
import { MAX_CACHED_VALIDATORS } from '../config/defaults.ts';
import { BoundedValidators } from './schema-validator.ts';

/** A schema whose every property read is counted (measuring, stringifying or compiling it reads it). */
function counted(schema: Record<string, unknown>): { schema: object; reads: () => number } {
  let reads = 0;
  const wrap = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    return new Proxy(value, {
      get(target, key, receiver) {
        reads++;
        return wrap(Reflect.get(target, key, receiver));
      },
    });
  };
  return { schema: wrap(schema) as object, reads: () => reads };
}

const SCHEMA = {
  type: 'object',
  properties: {
    owner: { type: 'string', description: 'Repository owner' },
    title: { type: 'string', minLength: 1 },
    labels: { type: 'array', items: { type: 'string' } },
  },
  required: ['owner', 'title'],
  additionalProperties: false,
};

describe('BoundedValidators', () => {
  it('reads a schema object once, however many calls it checks (not measured and stringified per call)', () => {
    const validators = new BoundedValidators();
    const { schema, reads } = counted(SCHEMA);
    expect(validators.check(schema, { owner: 'o', title: 't' }, 'args')).toEqual({ ok: true });
    const afterFirst = reads();
    expect(afterFirst).toBeGreaterThan(0);
    for (let i = 0; i < 100; i++) {
      expect(validators.check(schema, { owner: 'o', title: 't', labels: ['x'] }, 'args').ok).toBe(
        true,
      );
    }
    const verdict = validators.check(schema, { owner: 'o' }, 'args');
    expect(verdict).toMatchObject({ ok: false, kind: 'mismatch' });
    expect((verdict as { message: string }).message).toContain(
      "must have required property 'title'",
    );
    expect(reads()).toBe(afterFirst);
  });

  it('still checks every call against its own schema: same text shares a validator, other text does not', () => {
    const validators = new BoundedValidators();
    const a = structuredClone(SCHEMA);
    const b = structuredClone(SCHEMA);
    const strict = { ...structuredClone(SCHEMA), required: ['owner', 'title', 'labels'] };
    const args = { owner: 'o', title: 't' };
    expect(validators.check(a, args, 'args').ok).toBe(true);
    expect(validators.check(b, args, 'args').ok).toBe(true);
    expect(validators.check(strict, args, 'args').ok).toBe(false);
    expect(validators.check(a, args, 'args').ok).toBe(true);
  });

  it('keeps the compiled validators capped: a schema evicted from the cache is compiled again, not trusted', () => {
    const validators = new BoundedValidators();
    const first = { type: 'object', properties: { n: { type: 'number' } } };
    expect(validators.check(first, { n: 'x' }, 'args').ok).toBe(false);
    for (let i = 0; i <= MAX_CACHED_VALIDATORS; i++)
      validators.check(
        { type: 'object', properties: { [`p${i}`]: { type: 'string' } } },
        {},
        'args',
      );
    expect(validators.check(first, { n: 'x' }, 'args').ok).toBe(false);
    expect(validators.check(first, { n: 1 }, 'args').ok).toBe(true);
  });

  it('a schema too large to check stays unchecked on later calls', () => {
    const validators = new BoundedValidators();
    const huge = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 2_000 }, (_, i) => [`p${i}`, { type: 'string' }]),
      ),
    };
    expect(validators.check(huge, { p0: 1 }, 'args')).toEqual({ ok: true });
    expect(validators.check(huge, { p0: 1 }, 'args')).toEqual({ ok: true });
  });
});
