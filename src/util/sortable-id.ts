/** @module Ids that sort by creation time: hex milliseconds, a per-process counter, random digits. */
import { randomBytes } from 'node:crypto';

let lastMs = 0;
let counter = 0;

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
    lastMs.toString(16).padStart(12, '0') +
    counter.toString(16).padStart(4, '0') +
    randomBytes(4).toString('hex')
  );
}
