import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CALL_ERROR_CODES, EXECUTION_ERROR_CODES } from './codes.ts';

const readme = fs.readFileSync(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/programs.md'),
  'utf8',
);

describe('the error codes', () => {
  it.each([...EXECUTION_ERROR_CODES, ...CALL_ERROR_CODES])(
    '%s is documented in docs/programs.md',
    (code) => {
      expect(readme).toContain(`\`${code}\``);
    },
  );
});
