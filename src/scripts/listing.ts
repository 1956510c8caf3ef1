/** @module Reads the scripts directory into a listing: names, paths, statuses. Never creates it. */
import fs from 'node:fs';
import path from 'node:path';
import { MAX_SOURCE_BYTES } from '../config/defaults.ts';
import { SCRIPT_NAME_PATTERN } from './name.ts';
import type { InvalidReason, ScriptEntry, ScriptListing } from './types.ts';

/** `<name>.js` / `<name>.ts`, lowercase extensions only, name by the token rules. */
const SCRIPT_FILE = /^(.+)\.(js|ts)$/;

/** The script names and candidate files in `dir`, exactly as the directory spells them. */
export function scriptFiles(dir: string): Map<string, string[]> {
  let entries: string[];
  try {
    entries = fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw error;
  }
  const byName = new Map<string, string[]>();
  for (const entry of entries.sort()) {
    const match = SCRIPT_FILE.exec(entry);
    if (!match || !SCRIPT_NAME_PATTERN.test(match[1]!)) continue;
    const list = byName.get(match[1]!) ?? [];
    list.push(path.join(dir, entry));
    byName.set(match[1]!, list);
  }
  return byName;
}

/** Why a single candidate file cannot run, judged without following symlinks; undefined when usable. */
export function fileProblem(file: string): InvalidReason | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch {
    return 'unreadable';
  }
  if (!stat.isFile()) return 'non-regular';
  if (stat.size === 0) return 'empty';
  if (stat.size > MAX_SOURCE_BYTES) return 'oversized';
  try {
    fs.accessSync(file, fs.constants.R_OK);
  } catch {
    return 'unreadable';
  }
  return undefined;
}

/** Every script in `dir`, sorted by name; an absent directory is an empty list. */
export function listScripts(dir: string): ScriptListing {
  const scripts: ScriptEntry[] = [];
  for (const [name, paths] of scriptFiles(dir)) {
    if (paths.length > 1) {
      scripts.push({ name, paths, status: 'ambiguous' });
      continue;
    }
    const reason = fileProblem(paths[0]!);
    scripts.push(
      reason ? { name, paths, status: 'invalid', reason } : { name, paths, status: 'ok' },
    );
  }
  return { dir, scripts };
}
