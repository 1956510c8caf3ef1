import { describe, expect, it } from 'vitest';
import { encodeHeaderValue, paramHeaders, scanHeaders } from './mcp-param-headers.ts';

const prop = (type: string, header: unknown) => ({ type, 'x-mcp-header': header });
const tool = (properties: Record<string, unknown>) => ({ type: 'object', properties });

/** [case, inputSchema, expected: the declared header names, or a substring of the reason it is invalid]. */
const SCANS: Array<[string, unknown, string[] | string]> = [
  ['no declarations', tool({ q: { type: 'string' } }), []],
  [
    'string, integer and boolean',
    tool({ a: prop('string', 'Region'), b: prop('integer', 'Priority'), c: prop('boolean', 'V') }),
    ['Region', 'Priority', 'V'],
  ],
  ['nested through properties', tool({ o: tool({ a: prop('string', 'Inner') }) }), ['Inner']],
  ['empty name', tool({ a: prop('string', '') }), 'non-empty string'],
  ['not a string', tool({ a: prop('string', 7) }), 'non-empty string'],
  ['space in the name', tool({ a: prop('string', 'My Region') }), 'not an HTTP token'],
  ['colon in the name', tool({ a: prop('string', 'Region:Primary') }), 'not an HTTP token'],
  ['non-ASCII name', tool({ a: prop('string', 'Région') }), 'not an HTTP token'],
  ['control character in the name', tool({ a: prop('string', 'Region\t1') }), 'not an HTTP token'],
  ['on an object', tool({ a: prop('object', 'Data') }), 'not object'],
  ['on an array', tool({ a: prop('array', 'Items') }), 'not array'],
  ['on null', tool({ a: prop('null', 'Nil') }), 'not null'],
  ['on a number', tool({ a: prop('number', 'Score') }), 'not number'],
  ['without a type', tool({ a: { 'x-mcp-header': 'A' } }), 'not <none>'],
  [
    'the same name twice',
    tool({ a: prop('string', 'Region'), b: prop('string', 'Region') }),
    'declared twice',
  ],
  [
    'the same name in another case',
    tool({ a: prop('string', 'MyField'), b: prop('string', 'myfield') }),
    'declared twice',
  ],
  [
    'under items',
    tool({ a: { type: 'array', items: prop('string', 'I') } }),
    "reached through 'properties'",
  ],
  ['under anyOf', { type: 'object', anyOf: [tool({ a: prop('string', 'A') })] }, 'reached through'],
  ['under $defs', { type: 'object', $defs: { d: prop('string', 'D') } }, 'reached through'],
  ['at the root', { type: 'string', 'x-mcp-header': 'Root' }, 'reached through'],
];

describe('x-mcp-header declarations (SEP-2243)', () => {
  it.each(SCANS)('%s', (_name, schema, expected) => {
    const scan = scanHeaders(schema);
    if (typeof expected === 'string') {
      expect(scan.ok).toBe(false);
      expect(scan.ok ? '' : scan.reason).toContain(expected);
    } else {
      expect(scan.ok && scan.declarations.map((d) => d.header)).toEqual(expected);
    }
  });
});

describe('Mcp-Param-* headers', () => {
  it.each([
    ['us-west1', 'us-west1'],
    ['us west 1', 'us west 1'],
    ['', '=?base64??='],
    ['Hello, 世界', `=?base64?${Buffer.from('Hello, 世界').toString('base64')}?=`],
    [' padded ', `=?base64?${Buffer.from(' padded ').toString('base64')}?=`],
    ['line1\nline2', `=?base64?${Buffer.from('line1\nline2').toString('base64')}?=`],
    ['\tindented', `=?base64?${Buffer.from('\tindented').toString('base64')}?=`],
    ['=?base64?abc?=', `=?base64?${Buffer.from('=?base64?abc?=').toString('base64')}?=`],
  ])('encodes %j as %j', (value, encoded) => {
    expect(encodeHeaderValue(value)).toBe(encoded);
  });

  it('mirrors each declared value and omits null, absent and non-primitive ones', () => {
    const scan = scanHeaders(
      tool({
        region: prop('string', 'Region'),
        priority: prop('integer', 'Priority'),
        verbose: prop('boolean', 'Verbose'),
        debug: prop('boolean', 'Debug'),
        gone: prop('string', 'Gone'),
        nested: tool({ zone: prop('string', 'Zone') }),
        query: { type: 'string' },
      }),
    );
    if (!scan.ok) throw new Error(scan.reason);
    expect(
      paramHeaders(scan.declarations, {
        region: 'us-east1',
        priority: 42,
        verbose: null,
        debug: false,
        nested: { zone: 'b' },
        query: 'SELECT 1',
      }),
    ).toEqual({
      'Mcp-Param-Region': 'us-east1',
      'Mcp-Param-Priority': '42',
      'Mcp-Param-Debug': 'false',
      'Mcp-Param-Zone': 'b',
    });
  });
});
