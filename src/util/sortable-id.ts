/** @module Ids that sort by creation time: hex milliseconds, a per-process counter, random digits. */
import { randomBytes } from 'node:crypto';

let lastMs = 0;
let counter = 0;
/** Random bytes drawn ahead, 4 per id: one getrandom call per 1,024 ids instead of one per id. */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

function randomHex(): string {
  if (offset + 4 > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  offset += 4;
  return pool.toString('hex', offset - 4, offset);
}

/** 24 hex characters; lexicographic order is creation order within a process. */
export function sortableId(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else {
    counter++;
    // More than 65,536 ids in one millisecond: borrow the next millisecond.
    if (counter > 0xffff) {
      lastMs++;
      counter = 0;
    }
  }
  return (
    lastMs.toString(16).padStart(12, '0') + counter.toString(16).padStart(4, '0') + randomHex()
  );
}
