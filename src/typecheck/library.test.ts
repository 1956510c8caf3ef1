import { createRequire } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { libraryFiles, libraryText } from './library.ts';

const LIB = ['lib.es2023.d.ts', 'lib.es2024.promise.d.ts', 'lib.esnext.collection.d.ts'];
const libDir = path.dirname(createRequire(import.meta.url).resolve('typescript'));
const read = (file: string) => ts.sys.readFile(file);

describe('the library as one file', () => {
  it('holds the files TypeScript loads for the lib list, in the order its programs hold them', () => {
    const host = ts.createCompilerHost({});
    const getSourceFile = host.getSourceFile;
    host.getSourceFile = (file, ...rest) =>
      file === '/empty.ts'
        ? ts.createSourceFile(file, '', ts.ScriptTarget.ES2023)
        : getSourceFile(file, ...rest);
    const program = ts.createProgram({
      rootNames: ['/empty.ts'],
      options: { lib: LIB, types: [], noEmit: true },
      host,
    });
    const loaded = program
      .getSourceFiles()
      .map((f) => path.resolve(f.fileName))
      .filter((f) => f.startsWith(libDir));
    expect(loaded.length).toBeGreaterThan(LIB.length);
    expect(libraryFiles(ts, libDir, LIB, read)).toEqual(loaded);
  });

  it('is a default library that checks as the separate files do', () => {
    const text = libraryText(libraryFiles(ts, libDir, LIB, read), read);
    const files: Record<string, string> = {
      '/lib.d.ts': text,
      '/p.ts': `const s: string = [1, 2].map((n) => n * 2).at(-1);\nnew Set([1]).union(new Set([2]));`,
    };
    const host = ts.createCompilerHost({});
    host.getSourceFile = (file) => ts.createSourceFile(file, files[file]!, ts.ScriptTarget.ES2023);
    host.fileExists = (file) => file in files;
    const program = ts.createProgram({
      rootNames: Object.keys(files),
      options: { noLib: true, types: [], noEmit: true },
      host,
    });
    expect(program.getSourceFiles()).toHaveLength(2);
    expect(program.isSourceFileDefaultLibrary(program.getSourceFile('/lib.d.ts')!)).toBe(true);
    const found = program.getSemanticDiagnostics(program.getSourceFile('/p.ts'));
    expect(found.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([
      "Type 'number' is not assignable to type 'string'.",
    ]);
  });
});
