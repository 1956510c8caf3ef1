/**
 * @module Resolves a stored-script name to its source: the name is checked before the
 * filesystem is touched; the file is matched exactly against the directory's entries;
 * one open (no symlink following, no blocking on a FIFO) and one bounded read; no cache.
 * Messages for agent tokens never reveal a host path, an OS error or the listing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { MAX_SOURCE_BYTES } from '../config/defaults.ts';
import type { Language } from '../sandbox/index.ts';
import { listScripts, scriptFiles } from './listing.ts';
import { scriptNameProblem } from './name.ts';
import type { InvalidReason, ResolvedScript } from './types.ts';

/** How many names the not-found message lists for an administrator. */
const LISTED_NAMES = 20;
/** What every refusal's message starts with (a reader of the source, not a run, drops it). */
export const SCRIPT_REFUSAL_PREFIX = 'Cannot execute stored script: ';

export interface ResolveOptions {
  dir: string;
  /** Administrators get paths and the listing; agent tokens get neither. */
  admin: boolean;
  /** The language the caller asked for, if any. */
  language?: Language;
}

const REASON_TEXT: Record<InvalidReason, string> = {
  empty: 'is empty: a script needs at least 1 byte',
  oversized: `is oversized: scripts are limited to ${MAX_SOURCE_BYTES} bytes`,
  unreadable: 'is unreadable',
  'non-regular': 'is not a regular file (symlinks, directories, FIFOs and devices are refused)',
};

function refuse(
  code: Extract<ResolvedScript, { ok: false }>['code'],
  message: string,
): ResolvedScript {
  return { ok: false, code, message: SCRIPT_REFUSAL_PREFIX + message };
}

function notFound(name: string, options: ResolveOptions): ResolvedScript {
  if (!options.admin) {
    return refuse(
      'SCRIPT_NOT_FOUND',
      `stored script "${name}" not found (the stored-script listing is available to administrators only; an agent-token caller must already know the script name)`,
    );
  }
  const ok = listScripts(options.dir)
    .scripts.filter((s) => s.status === 'ok')
    .map((s) => s.name);
  if (ok.length === 0) {
    return refuse(
      'SCRIPT_NOT_FOUND',
      `stored script "${name}" not found: no stored scripts in ${options.dir} (create ${name}.js or ${name}.ts there)`,
    );
  }
  const shown = ok.slice(0, LISTED_NAMES).join(', ');
  return refuse(
    'SCRIPT_NOT_FOUND',
    `stored script "${name}" not found in ${options.dir}. Available scripts (${ok.length}): ${shown}${ok.length > LISTED_NAMES ? ', …' : ''}`,
  );
}

function unusable(
  name: string,
  file: string,
  reason: InvalidReason,
  options: ResolveOptions,
  detail?: string,
): ResolvedScript {
  const text = REASON_TEXT[reason];
  return options.admin
    ? refuse(
        'SCRIPT_UNUSABLE',
        `stored script "${name}" (${file}) ${text}${detail ? ` (${detail})` : ''}`,
      )
    : refuse('SCRIPT_UNUSABLE', `stored script "${name}" ${text}`);
}

/** Reads `file` with one open and one bounded read; never follows a symlink or waits on a FIFO. */
function readScript(
  file: string,
): { ok: true; source: string } | { ok: false; reason: InvalidReason; detail?: string } {
  let fd: number;
  try {
    fd = fs.openSync(
      file,
      fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK,
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ELOOP: the entry is a symlink (O_NOFOLLOW).
    if (code === 'ELOOP') return { ok: false, reason: 'non-regular' };
    return { ok: false, reason: 'unreadable', detail: (error as Error).message };
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { ok: false, reason: 'non-regular' };
    // One read of at most one byte more than allowed tells oversized from exact.
    const buffer = Buffer.alloc(MAX_SOURCE_BYTES + 1);
    let length = 0;
    for (;;) {
      const n = fs.readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0 || length + n === buffer.length) {
        length += n;
        break;
      }
      length += n;
    }
    if (length === 0) return { ok: false, reason: 'empty' };
    if (length > MAX_SOURCE_BYTES) return { ok: false, reason: 'oversized' };
    return { ok: true, source: buffer.subarray(0, length).toString('utf8') };
  } catch (error) {
    return { ok: false, reason: 'unreadable', detail: (error as Error).message };
  } finally {
    fs.closeSync(fd);
  }
}

/** Resolves `name` in `options.dir` to source and language, or a refusal with its code. */
export function resolveScript(name: string, options: ResolveOptions): ResolvedScript {
  const problem = scriptNameProblem(name);
  if (problem)
    return refuse('INVALID_SCRIPT_NAME', `invalid script name ${JSON.stringify(name)}: ${problem}`);
  let candidates: string[];
  try {
    candidates = scriptFiles(options.dir).get(name) ?? [];
  } catch (error) {
    return options.admin
      ? refuse(
          'SCRIPT_UNUSABLE',
          `the scripts directory ${options.dir} cannot be read (${(error as Error).message})`,
        )
      : refuse('SCRIPT_UNUSABLE', `stored script "${name}" cannot be read`);
  }
  if (candidates.length === 0) return notFound(name, options);
  if (candidates.length > 1) {
    return options.admin
      ? refuse(
          'SCRIPT_UNUSABLE',
          `stored script "${name}" is ambiguous: ${candidates.join(' and ')} both exist — remove one`,
        )
      : refuse(
          'SCRIPT_UNUSABLE',
          `stored script "${name}" is ambiguous: both a .js and a .ts file exist — ask an administrator to remove one`,
        );
  }
  const file = candidates[0]!;
  const language: Language = path.extname(file) === '.ts' ? 'typescript' : 'javascript';
  if (options.language && options.language !== language) {
    return refuse(
      'INVALID_LANGUAGE',
      `stored script "${name}" is a ${path.extname(file)} file (${language}) but language "${options.language}" was requested; omit "language" for stored scripts or use "${language}"`,
    );
  }
  const read = readScript(file);
  if (!read.ok)
    return unusable(name, file, read.reason, options, options.admin ? read.detail : undefined);
  return { ok: true, name, path: file, language, source: read.source };
}
