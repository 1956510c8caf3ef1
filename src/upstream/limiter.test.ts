import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter } from './limiter.ts';

describe('ConcurrencyLimiter.tryAcquire', () => {
  it('takes a free slot at once and never a slot that is not free', async () => {
    const limiter = new ConcurrencyLimiter(1, 1);
    const first = limiter.tryAcquire();
    expect(first).toBeTypeOf('function');
    expect(limiter.tryAcquire()).toBeUndefined();
    // A waiter queued behind the taken slot gets it when it is released, before tryAcquire can.
    const waiting = limiter.acquire();
    expect(await limiter.acquire()).toBeUndefined();
    first!();
    expect(limiter.tryAcquire()).toBeUndefined();
    const second = await waiting;
    expect(second).toBeTypeOf('function');
    second!();
    expect(limiter.tryAcquire()).toBeTypeOf('function');
  });

  it('always has a slot without a limit', () => {
    const limiter = new ConcurrencyLimiter(undefined, 0);
    for (let i = 0; i < 100; i++) expect(limiter.tryAcquire()).toBeTypeOf('function');
  });
});
