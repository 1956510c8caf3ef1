import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('the worker side', () => {
  it('imports nothing from the host side but the protocol file', () => {
    for (const file of fs
      .readdirSync(here)
      .filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith('.test.ts'))) {
      const text = fs.readFileSync(path.join(here, file), 'utf8');
      for (const match of text.matchAll(/from\s+'([^']+)'|import\('([^']+)'\)/g)) {
        const spec = match[1] ?? match[2]!;
        if (!spec.startsWith('.')) continue;
        const resolved = path.resolve(here, spec);
        const inside = resolved.startsWith(here + path.sep);
        const isProtocol = resolved === path.resolve(here, '..', 'protocol.ts');
        expect(inside || isProtocol, `${file} imports ${spec}`).toBe(true);
      }
    }
  });
});
