import { describe, expect, it } from 'vitest';
import type { ExecuteResult } from './code-mode-service.ts';
import { executeAnswerBytes, fitExecuteResult } from './fit-execute.ts';
import { answerBytes, fitAnswer, jsonBytes } from './fit-output.ts';
import type { Envelope, ToolCallRecord } from './types.ts';

const ID = '01a23cb64be30000ff7fd3d2';
const calls = (n: number): ToolCallRecord[] =>
  Array.from({ length: n }, (_, i) => ({ server: 's', tool: `t${i}`, ok: true, duration_ms: 1.5 }));
const logs = (n: number) => Array.from({ length: n }, (_, i) => `line ${i} ${'l'.repeat(50)}`);

describe('fitAnswer (code_execution)', () => {
  /** structuredContent exactly as the MCP surface builds it. */
  const structured = (a: { envelope: Envelope; toolCalls: ToolCallRecord[] }, stats: object) =>
    jsonBytes({ ...a.envelope, tool_calls: a.toolCalls, stats, activity_id: ID });

  it.each([
    ['a value that fits', { ok: true, value: 'v'.repeat(100) } as Envelope, 3],
    ['a value near the bound', { ok: true, value: 'v'.repeat(1990) } as Envelope, 3],
    [
      'a value with logs over it',
      { ok: true, value: 'v'.repeat(900), logs: logs(40) } as Envelope,
      40,
    ],
    [
      'a long error',
      {
        ok: false,
        error: { code: 'RUNTIME_ERROR', message: 'm'.repeat(9000), stack: 's'.repeat(9000) },
        logs: logs(10),
      } as Envelope,
      50,
    ],
  ])('%s: measured as structuredContent, within the bound', (_name, envelope, n) => {
    const stats = { duration_ms: 12.34, tool_calls: n };
    const answer = { envelope, toolCalls: calls(n), stats };
    expect(answerBytes(answer, ID)).toBe(structured(answer, stats));
    const fitted = fitAnswer(answer, 2048, ID);
    expect(structured(fitted, stats)).toBeLessThanOrEqual(2048);
    // The trace is kept from its start.
    expect(fitted.toolCalls).toEqual(answer.toolCalls.slice(0, fitted.toolCalls.length));
  });

  it('a value that fits only without its frame becomes OUTPUT_TOO_LARGE, logs kept if they fit', () => {
    const stats = { duration_ms: 1, tool_calls: 0 };
    const fitted = fitAnswer(
      { envelope: { ok: true, value: 'v'.repeat(2040), logs: ['one'] }, toolCalls: [], stats },
      2048,
      ID,
    );
    expect(fitted.envelope).toEqual({
      ok: false,
      error: {
        code: 'OUTPUT_TOO_LARGE',
        message:
          'The result is larger than code_execution_max_output_bytes (2048 bytes); return less data',
        stack: '',
      },
      logs: ['one'],
    });
  });
});

describe('fitExecuteResult (execute)', () => {
  const result = (value: unknown, n: number, lines: number): ExecuteResult => ({
    status: 'completed',
    result: value,
    error: null,
    diagnostics: [],
    logs: logs(lines),
    toolCalls: Array.from({ length: n }, (_, i) => ({ tool: `s.t${i}`, ok: true, durationMs: 2 })),
  });
  /** structuredContent plus _meta exactly as the MCP surface builds them. */
  const wire = (o: ReturnType<typeof fitExecuteResult>) =>
    jsonBytes({ ...o.result, activity_id: ID }) +
    (o.truncation ? jsonBytes({ 'codemux/codemodeTruncation': o.truncation }) : 0);

  it.each([
    ['fits as it is', result('v', 2, 2)],
    ['fits only without its activity_id', result('v'.repeat(1930), 0, 0)],
    ['needs its trace and logs dropped', result('v'.repeat(1000), 40, 30)],
    ['cannot fit alone', result('v'.repeat(5000), 1, 1)],
  ])('%s: the answer with activity_id and _meta stays within the bound', (_name, r) => {
    const fitted = fitExecuteResult(r, 2048, ID);
    expect(executeAnswerBytes(fitted, ID)).toBe(wire(fitted));
    expect(wire(fitted)).toBeLessThanOrEqual(2048);
  });
});

describe("the type check's diagnostics within the bound", () => {
  const finding = (i: number) => ({
    line: i + 1,
    column: 3,
    code: 2345,
    message: `unknown tool "t${i}" on server "s"; did you mean "x"? ${'d'.repeat(120)}`,
  });
  const findings = Array.from({ length: 20 }, (_, i) => finding(i));

  it('code_execution: a value that fits keeps its place; the diagnostics take what is left', () => {
    const stats = { duration_ms: 1, tool_calls: 0 };
    const envelope: Envelope = { ok: true, value: 'v'.repeat(3300), diagnostics: findings };
    const fitted = fitAnswer({ envelope, toolCalls: [], stats }, 4096, ID);
    expect(fitted.envelope).toMatchObject({ ok: true, value: 'v'.repeat(3300) });
    const kept = fitted.envelope.diagnostics ?? [];
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(20);
    expect(kept).toEqual(findings.slice(0, kept.length));
    expect(answerBytes({ ...fitted, stats }, ID)).toBeLessThanOrEqual(4096);
  });

  it('execute: the result keeps its place; the findings after the error take what is left', () => {
    const result: ExecuteResult = {
      status: 'completed',
      result: 'r'.repeat(3300),
      error: null,
      diagnostics: findings.map((f) => ({ kind: 'TypeError' as const, ...f })),
      logs: [],
      toolCalls: [],
    };
    const outcome = fitExecuteResult(result, 4096, ID);
    expect(outcome.result.status).toBe('completed');
    expect(outcome.result.result).toBe('r'.repeat(3300));
    expect(outcome.result.diagnostics.length).toBeGreaterThan(0);
    expect(outcome.result.diagnostics.length).toBeLessThan(20);
    expect(executeAnswerBytes(outcome, ID)).toBeLessThanOrEqual(4096);
  });
});
