import { describe, expect, it } from 'vitest';
import { semaphore, serialByKey } from './local-locks.ts';

// Bodies that take a moment on purpose: the locks are tested against overlapping work.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('serialByKey', () => {
  it('runs one body of a key at a time, in call order, past bodies that throw', async () => {
    const serial = serialByKey();
    const log: string[] = [];
    const body =
      (name: string, fail = false) =>
      async () => {
        log.push(`${name}+`);
        await sleep(5);
        log.push(`${name}-`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      serial('k', body('a')),
      serial('k', body('b', true)),
      serial('k', body('c')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(log).toEqual(['a+', 'a-', 'b+', 'b-', 'c+', 'c-']);
  });
});

describe('semaphore', () => {
  it('never runs more than its limit at once, and runs them all', async () => {
    const limited = semaphore(2);
    let running = 0;
    let most = 0;
    const results = await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        limited(async () => {
          running++;
          most = Math.max(most, running);
          await sleep(3);
          running--;
          if (i === 3) throw new Error('three');
          return i;
        }).catch(() => -1),
      ),
    );
    expect(results).toEqual([0, 1, 2, -1, 4, 5, 6]);
    expect(most).toBe(2);
    expect(await limited(async () => 'free')).toBe('free');
  });
});
