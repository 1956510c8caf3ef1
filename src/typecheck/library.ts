/**
 * @module The checker's library as one file: the same declarations TypeScript would load for
 * the `lib` list, in the same order, joined. A fresh type checker (one per check) merges every
 * library file's globals into one table before it checks anything; with one file the binder
 * has merged them once, when the file was first bound, and each check saves that work (about
 * 5 ms of every check; docs/benchmarks.md). Runs in the checker's worker.
 */
import path from 'node:path';
import type ts from 'typescript';

/** `/// <reference lib="..." />` names of a library file, lower-cased as TypeScript reads them. */
function referencedLibs(t: typeof ts, text: string): string[] {
  return t
    .preProcessFile(text, true, true)
    .libReferenceDirectives.map((r) => r.fileName.toLowerCase());
}

/** TypeScript's internal tables (kept by 5.x): lib name -> file, and the order it sorts libraries in. */
interface LibTables {
  libs: readonly string[];
  libMap: ReadonlyMap<string, string>;
}

/**
 * The library files a program with `lib` (names like "lib.es2023.d.ts") holds, in the order it
 * holds them: every file the list reaches through `/// <reference lib>`, sorted as TypeScript
 * sorts default libraries (by the position of their name in its list of libraries). The order
 * matters: it is the order interfaces merge in, which decides the order of overloads.
 */
export function libraryFiles(
  t: typeof ts,
  libDir: string,
  lib: readonly string[],
  read: (file: string) => string | undefined,
): string[] {
  const { libs, libMap } = t as unknown as LibTables;
  const found: string[] = [];
  const visit = (fileName: string) => {
    if (found.includes(fileName)) return;
    const text = read(path.join(libDir, fileName));
    if (text === undefined) throw new Error(`the TypeScript library ${fileName} is missing`);
    found.push(fileName);
    for (const name of referencedLibs(t, text)) {
      const file = libMap.get(name);
      if (file) visit(file);
    }
  };
  for (const fileName of lib) visit(fileName);
  const rank = (fileName: string) => {
    const at = libs.indexOf(fileName.replace(/^lib\./, '').replace(/\.d\.ts$/, ''));
    return at === -1 ? libs.length : at;
  };
  // Array.prototype.sort is stable: files of one rank keep the order they were reached in.
  return found.sort((a, b) => rank(a) - rank(b)).map((f) => path.join(libDir, f));
}

/** The text of the files, joined in order (the first, lib.es5.d.ts, marks it a default library). */
export function libraryText(
  files: readonly string[],
  read: (file: string) => string | undefined,
): string {
  return files.map((file) => read(file) ?? '').join('\n');
}
