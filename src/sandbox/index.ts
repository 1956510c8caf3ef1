/** @module The sandbox: contract, worker pool, source preparation. */
export type { BridgeReply, JobBridge, RunClock, SandboxExecutor } from './executor.ts';
export { SandboxPool } from './pool.ts';
export type {
  BatchRequest,
  CallDialect,
  CallRequest,
  GuestError,
  JobOutcome,
  JobReplay,
  JobSpec,
  LogLevel,
} from './protocol.ts';
export { BATCH_PARALLEL_RANGE, MAX_BATCH_SIZE } from './protocol.ts';
export { type Language, type PreparedSource, prepareSource } from './source/prepare-source.ts';
export type { Position } from './source/text-positions.ts';
export type { ParseFailure } from './source/top-level-return.ts';
export { stripFunctionBody } from './source/transpile.ts';
