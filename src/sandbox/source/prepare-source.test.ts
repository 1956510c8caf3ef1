import { describe, expect, it } from 'vitest';
import { prepareSource } from './prepare-source.ts';

describe('prepareSource', () => {
  it('leaves a program without top-level return untouched', async () => {
    const code = 'const f = () => { return 1 }; f()';
    const prepared = await prepareSource(code, 'javascript');
    expect(prepared).toMatchObject({ ok: true, code });
  });

  it('rewrites top-level returns and maps positions back exactly', async () => {
    const prepared = await prepareSource('let a = 1;\nif (a) return a.b.c;\nnull.x', 'javascript');
    if (!prepared.ok) throw new Error('expected ok');
    expect(prepared.code).toContain('break __codemux_program__');
    // `null.x` is line 3 of the original, line 4 of the rewritten code.
    const at = prepared.code.split('\n').findIndex((l) => l.includes('null.x')) + 1;
    expect(prepared.toOriginal({ line: at, column: 5 })).toEqual({ line: 3, column: 5 });
    // Inside the returned expression the column is kept too.
    const retLine = prepared.code.split('\n').findIndex((l) => l.includes('a.b.c')) + 1;
    const col = prepared.code.split('\n')[retLine - 1]!.indexOf('a.b.c') + 1;
    expect(prepared.toOriginal({ line: retLine, column: col })).toEqual({ line: 2, column: 15 });
  });

  it("leaves a source that does not parse as it is, with the parser's error", async () => {
    const code = 'var a = 1;\nif (a) {\n  return a;\n}\nvar b = (;\n';
    expect(await prepareSource(code, 'javascript')).toMatchObject({
      ok: true,
      code,
      syntaxError: { message: 'SyntaxError: Unexpected token', line: 5, column: 10 },
    });
  });

  it('keeps TypeScript positions when stripping types', async () => {
    const prepared = await prepareSource('const x: number = 1; x', 'typescript');
    expect(prepared).toMatchObject({ ok: true, code: 'const x         = 1; x' });
  });

  it('reports TypeScript errors with line and column', async () => {
    expect(await prepareSource('let a = 1;\nlet b: = 2', 'typescript')).toMatchObject({
      ok: false,
      line: 2,
      column: 8,
    });
  });
});
