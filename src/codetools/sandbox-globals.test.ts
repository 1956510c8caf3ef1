import { beforeAll, describe, expect, it } from 'vitest';
import { probeSandboxGlobals } from '../../test/sandbox-globals.ts';
import { paramNameProblem } from './names.ts';
import { SANDBOX_GLOBAL_NAMES } from './sandbox-globals.ts';

let engine: string[];
beforeAll(async () => {
  engine = await probeSandboxGlobals();
});

describe('the sandbox globals a code tool param cannot take', () => {
  it('are exactly the names the real sandbox defines (else run `npm run sandbox-globals`)', () => {
    expect([...SANDBOX_GLOBAL_NAMES]).toEqual(engine);
  });

  it('refuse every one of them, __proto__ too, and only them', () => {
    for (const name of engine) {
      expect(paramNameProblem(name), name).toMatch(/already defined in the sandbox|reserved word/);
    }
    expect(paramNameProblem('Iterator')).toContain('"Iterator" is already defined in the sandbox');
    expect(paramNameProblem('Float16Array')).toContain('already defined in the sandbox');
    expect(paramNameProblem('__proto__')).toContain('params.name "__proto__" cannot be a variable');
    // Object.prototype's other members are fine: an own variable shadows them.
    for (const name of ['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'Atomics'])
      expect(paramNameProblem(name), name).toBeUndefined();
  });
});
