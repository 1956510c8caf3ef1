import { describe, expect, it } from 'vitest';
import { withClock } from './clock-import.ts';

describe('the clock import', () => {
  const other = () => 52;

  it('is replaced in a copy, the other imports kept', () => {
    const imports = { a: { d: other, p: () => Date.now() } };
    const replaced = withClock(imports, () => 7) as typeof imports;
    expect(replaced.a.p()).toBe(7);
    expect(replaced.a.d).toBe(other);
    expect(imports.a.p()).not.toBe(7);
  });

  it.each([
    ['none', { a: { d: other } }],
    ['two', { a: { p: () => Date.now(), q: () => Date.now() } }],
  ])('refuses a build with %s', (count, imports) => {
    expect(() => withClock(imports, () => 7)).toThrow(
      `the QuickJS build has ${count === 'none' ? 0 : 2} Date.now imports, not 1`,
    );
  });
});
