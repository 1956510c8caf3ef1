/** @module The folder layering of docs/architecture.md ("Import rules, as they are"), checked on every relative import under src/. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.dirname(fileURLToPath(import.meta.url));

/** Top to bottom: a folder may import only folders on a later row (a row's folders never each other). */
const LAYERS: readonly (readonly string[])[] = [
  ['cli'],
  ['http'],
  ['mcp', 'ui'],
  ['execution'],
  ['typecheck'],
  ['scripts'],
  ['codetools'],
  ['catalog'],
  ['sandbox'],
  ['upstream'],
  ['store'],
  ['telemetry'],
  ['config'],
  ['util'],
  ['errors'],
  ['types'],
];

const rank = new Map(
  LAYERS.flatMap((row, i) => row.map((folder): [string, number] => [folder, i])),
);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|js)$/.test(entry.name) ? [full] : [];
  });
}

/** The top folder under src/ of `file`, or undefined when it lies outside src/ (test helpers). */
function topFolder(file: string): string | undefined {
  const relative = path.relative(SRC, file);
  if (relative.startsWith('..')) return undefined;
  return relative.includes(path.sep) ? relative.split(path.sep)[0] : undefined;
}

describe('the folders under src/', () => {
  it('are all placed in the layering', () => {
    const folders = fs
      .readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => !rank.has(folder))).toEqual([]);
  });

  it('import only folders below their own', () => {
    const upward: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = topFolder(file);
      if (from === undefined) continue;
      const text = fs.readFileSync(file, 'utf8');
      for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
        const to = topFolder(path.resolve(path.dirname(file), match[1]!));
        if (to === undefined || to === from) continue;
        if ((rank.get(to) ?? -1) <= (rank.get(from) ?? -1))
          upward.push(`${path.relative(SRC, file)} imports ${match[1]}`);
      }
    }
    expect(upward).toEqual([]);
  });
});
