import { describe, expect, it } from 'vitest';
import type { CodeToolParam, CodeToolParamType } from '../store/index.ts';
import { castArguments, castValue } from './cast.ts';
import { inputSchema } from './schema.ts';

// [type, given, cast value, or undefined when refused]
const CASTS: Array<[CodeToolParamType, unknown, unknown]> = [
  ['string', 'USD', 'USD'],
  ['string', 12, '12'],
  ['string', true, 'true'],
  ['string', { a: 1 }, undefined],
  ['string', [1], undefined],
  ['integer', 42, 42],
  ['integer', '42', 42],
  ['integer', ' -7 ', -7],
  ['integer', 1.5, undefined],
  ['integer', '1.5', undefined],
  ['integer', 'abc', undefined],
  ['integer', true, undefined],
  ['integer', 2 ** 60, undefined],
  ['decimal', 1234.5, 1234.5],
  ['decimal', '1234.50', 1234.5],
  ['decimal', '1e3', 1000],
  ['decimal', '12abc', undefined],
  ['decimal', '', undefined],
  ['decimal', false, undefined],
  ['date', '2026-03-01', '2026-03-01T00:00:00.000Z'],
  ['date', '2026-03-01T10:20:30+02:00', '2026-03-01T08:20:30.000Z'],
  ['date', '2026-02-30', undefined],
  ['date', 'tomorrow', undefined],
  ['date', 20260301, undefined],
  ['boolean', true, true],
  ['boolean', 'false', false],
  ['boolean', 'yes', undefined],
  ['boolean', 1, undefined],
  ['array', [1, 'a'], [1, 'a']],
  ['array', '[1,2]', [1, 2]],
  ['array', '{"a":1}', undefined],
  ['array', 'nope', undefined],
  ['object', { a: 1 }, { a: 1 }],
  ['object', '{"a":[1]}', { a: [1] }],
  ['object', [1], undefined],
  ['object', '[1]', undefined],
];

describe('casting a code tool argument', () => {
  it.each(CASTS)('%s from %j', (type, given, expected) => {
    const cast = castValue(type, given);
    if (expected === undefined) expect(cast.ok).toBe(false);
    else expect(cast).toEqual({ ok: true, value: expected });
  });
});

const p = (name: string, type: CodeToolParamType, over: Partial<CodeToolParam> = {}) => ({
  name,
  description: '',
  type,
  required: true,
  default_value: null,
  ...over,
});
const PARAMS = [
  p('amount', 'decimal'),
  p('currency_code', 'string', { required: false, default_value: 'USD' }),
  p('when', 'date', { required: false }),
];

// [arguments, cast values or the refusal's text]
const CALLS: Array<[unknown, Record<string, unknown> | RegExp]> = [
  [{ amount: '5' }, { amount: 5, currency_code: 'USD' }],
  [
    { amount: 5, currency_code: 'EUR' },
    { amount: 5, currency_code: 'EUR' },
  ],
  [
    { amount: 5, currency_code: null },
    { amount: 5, currency_code: 'USD' },
  ],
  [
    { amount: 5, when: '2026-01-02' },
    { amount: 5, currency_code: 'USD', when: '2026-01-02T00:00:00.000Z' },
  ],
  [{}, /missing required param "amount" \(a number/],
  [{ amount: 'five' }, /param "amount" must be a number.*got "five"/],
  [
    { amount: 1, currency: 'USD' },
    /unknown param "currency"; this tool accepts: amount, currency_code, when/,
  ],
  [[1], /arguments must be an object/],
];

describe('a call', () => {
  it.each(CALLS)('with %j', (args, expected) => {
    const cast = castArguments(PARAMS, args);
    if (expected instanceof RegExp) {
      expect(cast.ok).toBe(false);
      if (!cast.ok) expect(cast.message).toMatch(expected);
    } else {
      expect(cast.ok && cast.value.values).toEqual(expected);
    }
  });

  it('names the optional params omitted without a default, defined as undefined in the guest', () => {
    expect(castArguments(PARAMS, { amount: 1 })).toMatchObject({
      ok: true,
      value: { omitted: ['when'] },
    });
    expect(castArguments(PARAMS, { amount: 1, when: null })).toMatchObject({
      value: { omitted: ['when'] },
    });
    expect(castArguments(PARAMS, { amount: 1, when: '2026-01-02' })).toMatchObject({
      value: { omitted: [] },
    });
  });

  it('names the date params, whose values become a Date in the guest', () => {
    const cast = castArguments(PARAMS, { amount: 1, when: '2026-01-02' });
    expect(cast.ok && cast.value.dates).toEqual(['when']);
  });
});

describe('the derived input schema', () => {
  it('maps each type, with descriptions, defaults and the required list', () => {
    const schema = inputSchema([
      p('s', 'string', { description: 'text' }),
      p('i', 'integer'),
      p('d', 'decimal', { required: false, default_value: 1.5 }),
      p('t', 'date', { required: false }),
      p('b', 'boolean'),
      p('a', 'array'),
      p('o', 'object'),
    ]);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        s: { type: 'string', description: 'text' },
        i: { type: 'integer' },
        d: { type: 'number', default: 1.5 },
        t: { type: 'string', format: 'date' },
        b: { type: 'boolean' },
        a: { type: 'array' },
        o: { type: 'object' },
      },
      required: ['s', 'i', 'b', 'a', 'o'],
      additionalProperties: false,
    });
  });

  it('lists a default saved as text with the type of its param', () => {
    const optional = { required: false };
    const { properties } = inputSchema([
      p('i', 'integer', { ...optional, default_value: '5' }),
      p('b', 'boolean', { ...optional, default_value: 'true' }),
      p('o', 'object', { ...optional, default_value: '{"a":1}' }),
      p('s', 'string', { ...optional, default_value: '5' }),
      p('t', 'date', { ...optional, default_value: '2026-01-02' }),
    ]);
    expect(Object.values(properties).map((schema) => schema.default)).toEqual([
      5,
      true,
      { a: 1 },
      '5',
      '2026-01-02',
    ]);
  });
});
