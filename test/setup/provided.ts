/**
 * @module What the globalSetups hand to test files (`project.provide` -> `inject`): the shared
 * PostgreSQL's port and the shared Chromium's endpoint, or the one line saying why it is missing.
 */

/** A shared part started by a globalSetup: where to reach it, or why it could not start. */
export type SharedPart<T> = { ok: true; value: T } | { ok: false; message: string };

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared PostgreSQL's port on 127.0.0.1 (test/setup/postgres.ts). */
    postgres: SharedPart<number>;
    /** The shared Chromium's WebSocket endpoint on 127.0.0.1 (test/setup/chromium.ts). */
    chromium: SharedPart<string>;
  }
}

/** Runs `start`; a failure (e.g. a missing binary's one-line hint) becomes a value for the test files to throw. */
export async function startPart<T>(start: () => Promise<T>): Promise<SharedPart<T>> {
  try {
    return { ok: true, value: await start() };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

/** The part's value, or the one-line failure a test file's beforeAll throws. */
export function partValue<T>(part: SharedPart<T> | undefined, what: string): T {
  if (part?.ok) return part.value;
  const error = new Error(part?.message ?? `${what} was not started: run this file in its tier`);
  // The message is the whole story: no stack to scroll past.
  error.stack = error.message;
  throw error;
}
