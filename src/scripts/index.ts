/** @module Stored scripts: names, listing, resolution. There is deliberately no write path. */
import path from 'node:path';
import type { ResolvedConfig } from '../config/index.ts';

export { listScripts } from './listing.ts';
export { SCRIPT_NAME_PATTERN, scriptNameProblem } from './name.ts';
export { type ResolveOptions, resolveScript, SCRIPT_REFUSAL_PREFIX } from './resolve.ts';
export type {
  InvalidReason,
  ResolvedScript,
  ScriptEntry,
  ScriptListing,
  ScriptStatus,
} from './types.ts';

/** `scripts/` next to the active config file. */
export function scriptsDir(config: ResolvedConfig): string {
  return path.join(config.baseDir, 'scripts');
}
