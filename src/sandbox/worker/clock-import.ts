/**
 * @module Where the pinned QuickJS build reads the wall clock: the one emscripten import that
 * is `() => Date.now()` (emscripten_date_now, behind gettimeofday, which QuickJS's Date and
 * its Math.random seed at context creation call). It is found by its source, not its minified
 * name, and a build without exactly one such import is refused.
 */

type Imports = Record<string, Record<string, unknown>>;

const CLOCK_SOURCE = /^\(\)\s*=>\s*Date\.now\(\)$/;

/** The imports with the clock import replaced by `now`; throws when the build has not exactly one. */
export function withClock(imports: object, now: () => number): object {
  const found: Array<[string, string]> = [];
  for (const [module, fields] of Object.entries(imports as Imports)) {
    for (const [name, value] of Object.entries(fields))
      if (typeof value === 'function' && CLOCK_SOURCE.test(String(value)))
        found.push([module, name]);
  }
  if (found.length !== 1)
    throw new Error(`the QuickJS build has ${found.length} Date.now imports, not 1`);
  const [module, name] = found[0]!;
  const source = imports as Imports;
  return { ...source, [module]: { ...source[module], [name]: now } };
}
