/** @module In-process locks: one at a time per key (a promise chain, dropped when idle), and a counting semaphore. */

/** Runs each `fn` after the previous one of the same key settled, whether it resolved or threw. */
export function serialByKey(): <T>(key: string, fn: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<void>>();
  return async (key, fn) => {
    const before = tails.get(key);
    let done!: () => void;
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    tails.set(key, mine);
    try {
      // `before` only ever resolves: a predecessor that threw still lets this one run.
      await before;
      return await fn();
    } finally {
      done();
      if (tails.get(key) === mine) tails.delete(key);
    }
  };
}

/** At most `limit` bodies at once (the rest wait in order). */
export function semaphore(limit: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (fn) => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await fn();
    } finally {
      // The slot passes straight to the next waiter, so `running` counts it still.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
