import { describe, expect, it } from 'vitest';
import type { CodeToolSettings } from '../store/index.ts';
import { parseDocument } from './document.ts';
import { checkCreate, checkParam, checkSave } from './validate.ts';

const caps = { maxTimeoutMs: 60_000, maxMemoryMb: 512 };
const current: CodeToolSettings = {
  description: '',
  code: '',
  timeout_ms: 5000,
  memory_limit_mb: 128,
  enabled: true,
  allowed_servers: [],
};

// [what, check, message the refusal must contain]
const REFUSALS: Array<[string, () => { ok: boolean; message?: string }, string]> = [
  ['a bad tool name', () => checkCreate({ name: 'a b' }, caps), 'name must be 1-64 characters'],
  ['code_execution', () => checkCreate({ name: 'code_execution' }, caps), 'reserved'],
  [
    'an unknown create field',
    () => checkCreate({ name: 'a', colour: 'red' }, caps),
    'unknown field "colour"; allowed: name, description, code, timeout_ms',
  ],
  [
    'a whole tool with a bad param type',
    () =>
      checkCreate(
        {
          name: 'a',
          params: [
            { name: 'x', type: 'string' },
            { name: 'y', type: 'money' },
          ],
        },
        caps,
      ),
    'params[1].type must be one of',
  ],
  [
    'a whole tool with a __proto__ param',
    () => checkCreate({ name: 'a', params: [{ name: '__proto__', type: 'string' }] }, caps),
    'params[0].name "__proto__" cannot be a variable',
  ],
  [
    'a whole tool naming a param twice',
    () =>
      checkCreate(
        {
          name: 'a',
          params: [
            { name: 'x', type: 'string' },
            { name: 'x', type: 'integer' },
          ],
        },
        caps,
      ),
    'params[1].name "x" appears twice',
  ],
  [
    'a whole tool with params as an object',
    () => checkCreate({ name: 'a', params: {} }, caps),
    'params must be an array',
  ],
  [
    'a whole tool with a timeout over the cap',
    () => checkCreate({ name: 'a', code: '1', timeout_ms: 60_001 }, caps),
    'timeout_ms must be an integer from 1 to 60000',
  ],
  [
    'a timeout over the cap',
    () => checkSave({ timeout_ms: 60_001 }, current, caps),
    'timeout_ms must be an integer from 1 to 60000',
  ],
  [
    'a fractional memory',
    () => checkSave({ memory_limit_mb: 1.5 }, current, caps),
    'memory_limit_mb must be an integer',
  ],
  [
    'a memory over the cap',
    () => checkSave({ memory_limit_mb: 513 }, current, caps),
    'code_tools_max_memory_mb',
  ],
  [
    'enabled as text',
    () => checkSave({ enabled: 'yes' }, current, caps),
    'enabled must be true or false',
  ],
  [
    'allowed_servers as text',
    () => checkSave({ allowed_servers: 'a' }, current, caps),
    'allowed_servers must be an array',
  ],
  ['code as a number', () => checkSave({ code: 1 }, current, caps), 'code must be a string'],
  [
    'an unknown save field',
    () => checkSave({ params: [] }, current, caps),
    'unknown field "params"',
  ],
  [
    'a param name with a dash',
    () => checkParam({ name: 'a-b', type: 'string' }),
    'params.name must be a JavaScript identifier',
  ],
  ['a reserved word', () => checkParam({ name: 'class', type: 'string' }), 'reserved word'],
  [
    'a sandbox global',
    () => checkParam({ name: 'console', type: 'string' }),
    'already defined in the sandbox',
  ],
  [
    'a builtin',
    () => checkParam({ name: 'Math', type: 'string' }),
    'already defined in the sandbox',
  ],
  [
    'an unknown type',
    () => checkParam({ name: 'a', type: 'float' }),
    'params.type must be one of string, integer, decimal, date, boolean, array, object',
  ],
  [
    'required as text',
    () => checkParam({ name: 'a', type: 'string', required: 'yes' }),
    'params.required must be true or false',
  ],
  [
    'a default of the wrong type',
    () => checkParam({ name: 'a', type: 'integer', default_value: 'x' }),
    'params.default_value must be an integer',
  ],
  [
    'a document of another format',
    () => parseDocument({ tools: [] }, caps, { timeoutMs: 5000, memoryMb: 128 }),
    '"format" must be',
  ],
  [
    'a bad param deep in a document',
    () =>
      parseDocument(
        {
          format: 'codemux.code-tools',
          version: 1,
          tools: [{ name: 'a', params: [{ name: 'x', type: 'nope' }] }],
        },
        caps,
        { timeoutMs: 5000, memoryMb: 128 },
      ),
    'tools[0].params[0].type must be one of',
  ],
];

describe('code tool input is refused, naming the field', () => {
  it.each(REFUSALS)('%s', (_what, check, message) => {
    const result = check();
    expect(result.ok).toBe(false);
    expect(result.message).toContain(message);
  });

  it('records a first version only when a create carries what a PUT would save', () => {
    const versioned = (body: Record<string, unknown>) => {
      const checked = checkCreate(body, caps);
      return checked.ok ? checked.value.versioned : checked.message;
    };
    expect(versioned({ name: 'a', description: 'd' })).toBe(false);
    expect(versioned({ name: 'a', params: [{ name: 'x', type: 'string' }] })).toBe(false);
    expect(versioned({ name: 'a', code: '1' })).toBe(true);
    expect(versioned({ name: 'a', enabled: false })).toBe(true);
  });

  it('keeps the fields a save leaves out', () => {
    expect(checkSave({ code: '1' }, current, caps)).toEqual({
      ok: true,
      value: { ...current, code: '1' },
    });
  });
});
