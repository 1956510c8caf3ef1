/**
 * @module The example requests and responses of the API reference and the overview, as one
 * table that every surface runs (code exec, stdio). Examples that name servers codemux's
 * tests do not have (github) use the real reference servers instead.
 */
import { expect } from 'vitest';

export interface SpecExample {
  name: string;
  args: {
    code: string;
    language?: string;
    input?: Record<string, unknown>;
    options?: Record<string, unknown>;
  };
  // biome-ignore lint/suspicious/noExplicitAny: envelopes are checked field by field
  check(envelope: any): void;
}

const okValue = (value: unknown) => (e: { ok: boolean; value: unknown }) =>
  expect(e).toEqual({ ok: true, value });

export const SPEC_EXAMPLES: SpecExample[] = [
  {
    name: 'basic request',
    args: { code: '({ result: input.value * 2 })', input: { value: 21 } },
    check: okValue({ result: 42 }),
  },
  {
    name: 'TypeScript request',
    args: {
      code: "const x: number = 42; const msg: string = 'hello'; ({ result: x, message: msg })",
      language: 'typescript',
    },
    check: okValue({ result: 42, message: 'hello' }),
  },
  {
    name: 'full request with options (top-level return)',
    args: {
      code: "var res = call_tool('everything', 'echo', {message: input.username}); return res.ok ? res.result : {error: res.error};",
      input: { username: 'octocat' },
      options: { timeout_ms: 30000, max_tool_calls: 10, allowed_servers: ['everything', 'memory'] },
    },
    check: okValue({ content: [{ type: 'text', text: 'Echo: octocat' }] }),
  },
  {
    name: 'SYNTAX_ERROR',
    args: { code: 'var x = { missing bracket' },
    check: (e) => {
      expect(e.ok).toBe(false);
      expect(e.error).toMatchObject({ code: 'SYNTAX_ERROR', stack: '', line: 1 });
      expect(e.error.message).toMatch(/^SyntaxError: /);
    },
  },
  {
    name: 'RUNTIME_ERROR',
    args: { code: 'var x = null; x.property' },
    check: (e) => {
      expect(e.error).toMatchObject({
        code: 'RUNTIME_ERROR',
        message: "TypeError: cannot read property 'property' of null",
      });
      expect(e.error.stack).toMatch(
        /^TypeError: cannot read property 'property' of null\n {4}at <eval> \(code\.js:1:\d+\)/,
      );
    },
  },
  {
    name: 'TIMEOUT',
    args: { code: 'while(true) {}', options: { timeout_ms: 1000 } },
    check: (e) =>
      expect(e).toEqual({
        ok: false,
        error: { code: 'TIMEOUT', message: 'JavaScript execution timed out', stack: '' },
      }),
  },
  {
    name: 'MAX_TOOL_CALLS_EXCEEDED',
    args: {
      code: "for(var i=0;i<10;i++){call_tool('api','ping',{})}",
      options: { max_tool_calls: 5 },
    },
    check: (e) =>
      expect(e).toEqual({
        ok: false,
        error: {
          code: 'MAX_TOOL_CALLS_EXCEEDED',
          message: 'Exceeded maximum tool calls limit (5)',
          stack: '',
        },
      }),
  },
  {
    name: 'SERVER_NOT_ALLOWED',
    args: {
      code: "call_tool('gitlab', 'get_user', {username: 'test'})",
      options: { allowed_servers: ['github'] },
    },
    check: okValue({
      ok: false,
      error: {
        code: 'SERVER_NOT_ALLOWED',
        message: "Server 'gitlab' is not in the allowed servers list",
      },
    }),
  },
  {
    name: 'SERIALIZATION_ERROR',
    args: { code: '({fn: function() { return 42; }})' },
    check: (e) => {
      expect(e.error.code).toBe('SERIALIZATION_ERROR');
      expect(e.error.message).toBe(
        'Result contains non-JSON-serializable values (functions, circular references, etc.)',
      );
      expect(e.error.stack).toBe('value.fn is a function');
    },
  },
  {
    name: 'thrown Error (overview)',
    args: { code: "throw new Error('Something went wrong')" },
    check: (e) =>
      expect(e.error).toMatchObject({ code: 'RUNTIME_ERROR', message: 'Something went wrong' }),
  },
  {
    name: 'pattern 1: sequential calls',
    args: {
      code: "(() => { const userRes = call_tool('everything', 'echo', {message: input.username}); if (!userRes.ok) { return {error: userRes.error.message}; } const reposRes = call_tool('everything', 'get-sum', {a: 1, b: 2}); if (!reposRes.ok) { return {error: reposRes.error.message}; } return { user: userRes.result.content[0].text, sum: reposRes.result.content[0].text }; })();",
      input: { username: 'octocat' },
    },
    check: (e) => {
      expect(e.value.user).toBe('Echo: octocat');
      expect(e.value.sum).toContain('3');
    },
  },
  {
    name: 'pattern 2: conditional fallback',
    args: {
      code: "(() => { let result = call_tool('primary-db', 'query', {sql: input.query}); if (!result.ok) { result = call_tool('everything', 'echo', {message: input.query}); } return result.ok ? result.result.content[0].text : {error: 'Both databases unavailable'}; })();",
      input: { query: 'select 1' },
    },
    check: okValue('Echo: select 1'),
  },
  {
    name: 'pattern 3: loop with aggregation',
    args: {
      code: "(() => { const results = []; const errors = []; for (const id of input.ids) { const res = id === 'bad' ? call_tool('everything', 'no-such-tool', {id}) : call_tool('everything', 'echo', {message: id}); if (res.ok) { results.push(res.result.content[0].text); } else { errors.push({id, error: res.error}); } } return { success: results, failed: errors, success_count: results.length, error_count: errors.length }; })();",
      input: { ids: ['a', 'bad', 'c'] },
    },
    check: (e) =>
      expect(e.value).toEqual({
        success: ['Echo: a', 'Echo: c'],
        failed: [
          {
            id: 'bad',
            error: { code: 'UPSTREAM_ERROR', message: 'tool not found: everything.no-such-tool' },
          },
        ],
        success_count: 2,
        error_count: 1,
      }),
  },
  {
    name: 'pattern 4: data transformation',
    args: {
      code: "(() => { const reposRes = call_tool('everything', 'get-structured-content', {location: 'New York'}); if (!reposRes.ok) return reposRes; const repos = [reposRes.result.structuredContent, {temperature: 10}]; const total = repos.reduce((sum, r) => sum + (r.temperature ?? 0), 0); return { total_repos: repos.length, has_total: typeof total === 'number' }; })();",
    },
    check: okValue({ total_repos: 2, has_total: true }),
  },
  {
    name: 'pattern 5: parallel fan-out with call_tools',
    args: {
      code: "var prs = call_tools([1, 2, 3, 4, 5].map(function (n) { return {server: 'everything', tool: 'echo', args: {message: 'pr ' + n}}; }), {max_parallel: 5}); var titles = prs.map(function (r) { if (!r.ok) { return 'ERR: ' + r.error.code; } return r.result.content[0].text; }); ({titles: titles});",
    },
    check: okValue({
      titles: ['Echo: pr 1', 'Echo: pr 2', 'Echo: pr 3', 'Echo: pr 4', 'Echo: pr 5'],
    }),
  },
  {
    name: 'TypeScript via MCP tool (overview)',
    args: {
      code: "interface User { name: string; }\nconst user: User = { name: input.username };\n({ greeting: 'Hello ' + user.name })",
      language: 'typescript',
      input: { username: 'Alice' },
    },
    check: okValue({ greeting: 'Hello Alice' }),
  },
  {
    name: 'TypeScript features (overview list)',
    args: {
      code: 'type StringOrNumber = string | number;\nfunction identity<T>(arg: T): T { return arg; }\nenum Direction { Up = "UP", Down = "DOWN" }\nnamespace MyLib { export const value = 42; }\nconst v = input.v as string;\n({ id: identity<StringOrNumber>(1), d: Direction.Up, lib: MyLib.value, v })',
      language: 'typescript',
      input: { v: 'x' },
    },
    check: okValue({ id: 1, d: 'UP', lib: 42, v: 'x' }),
  },
];

/** The `codemux code exec` flags for an example. */
export function toCliFlags(args: SpecExample['args']): string[] {
  const flags = ['--code', args.code];
  if (args.language) flags.push('--language', args.language);
  if (args.input) flags.push('--input', JSON.stringify(args.input));
  const o = args.options ?? {};
  if (o.timeout_ms !== undefined) flags.push('--timeout', String(o.timeout_ms));
  if (o.max_tool_calls !== undefined) flags.push('--max-tool-calls', String(o.max_tool_calls));
  if (o.allowed_servers !== undefined)
    flags.push('--allowed-servers', (o.allowed_servers as string[]).join(','));
  return flags;
}
