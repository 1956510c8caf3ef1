/**
 * @module The four 32-bit words that seed the guest's Math.random (xoshiro128** in the
 * prelude): the first 128 bits of SHA-256 of the job's seed text, or 128 random bits when
 * the job has no seed.
 */
import { createHash, randomFillSync } from 'node:crypto';

export const SEED_WORDS = 4;

/** The prelude's seed words for `seed`; the same seed always gives the same words. */
export function seedWords(seed: string | number | undefined): number[] {
  const bytes =
    seed === undefined
      ? randomFillSync(Buffer.alloc(4 * SEED_WORDS))
      : createHash('sha256').update(String(seed)).digest();
  return Array.from({ length: SEED_WORDS }, (_, i) => bytes.readInt32LE(4 * i));
}
