/** @module A command's action that imports its module only when the command runs, so registering it (and `--help`) stays cheap. */

/** Wraps `load` (e.g. `async () => (await import('./x-run.ts')).list`) as a commander action; errors reach main.ts as before. */
export function lazyAction<A extends unknown[]>(
  load: () => Promise<(...args: A) => unknown>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const action = await load();
    await action(...args);
  };
}
