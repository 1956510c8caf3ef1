/** @module Where the worker entry lives: compiled JS in dist/, TypeScript (through tsx) in src/. */

/** The worker entry file: dist/ runs main.js; the sources run main.ts through tsx. */
export function workerEntry(): URL {
  const fromSource = import.meta.url.endsWith('.ts');
  return new URL(fromSource ? './worker/source-entry.js' : './worker/main.js', import.meta.url);
}
