/**
 * @module Writes server changes (the dashboard's, the REST API's) back into the config file,
 * which stays the source of truth: each change is applied to the file as it is at that
 * moment, in place (its shape, formatting and other keys kept), only when the result is a
 * valid config, and atomically (a temporary file renamed over it). A hand edit made meanwhile
 * is never lost: an unrelated one stays, and one to the same server is replaced by the later
 * write and reported in its answer.
 */
import fs from 'node:fs';
import path from 'node:path';
import { applyEdits, type JSONPath, modify } from 'jsonc-parser';
import { ConfigError } from '../errors/index.ts';
import { parseConfig } from './load.ts';
import { userServerSchema } from './schema.ts';
import {
  findServer,
  insertion,
  type Located,
  namedTwice,
  type RawEntry,
  revisionOf,
  serverEntries,
} from './server-entries.ts';
import type { ResolvedConfig } from './types.ts';

/** In `env` and `headers` of a change: keep the value the file has (the dashboard never shows them). */
export const HIDDEN_VALUE = '[hidden]';
/** Fields whose values are secrets: shown as HIDDEN_VALUE. */
const SECRET_MAPS = ['env', 'headers'] as const;
/** Tool names a tool switch may write: MCP's bound on a tool name, generously. */
export const MAX_TOOL_NAME_CHARS = 256;
const SERVER_FIELDS = new Set(Object.keys(userServerSchema.shape));
/** A write that finds the file changed between reading and renaming starts again, this often. */
const WRITE_ATTEMPTS = 5;

/** Why a change was refused: `status` 400 (the change), 404 (no such server), 409 (the file). */
export class ConfigEditError extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** What a written change says: the server's entry now, and what it replaced that the caller had not seen. */
export interface EditResult {
  entry: RawEntry;
  revision: string;
  /** A hand edit of this server made after `base` was read, replaced by this change: the entry it had. */
  replaced?: { revision: string; entry: RawEntry };
}

/** `entry` as it may be shown: the values of `env` and `headers` hidden. */
export function shownEntry(entry: RawEntry): RawEntry {
  const out: RawEntry = { ...entry };
  for (const key of SECRET_MAPS) {
    const map = entry[key];
    if (isMap(map)) out[key] = Object.fromEntries(Object.keys(map).map((k) => [k, HIDDEN_VALUE]));
  }
  const oauth = entry.oauth;
  if (isMap(oauth) && oauth.client_secret !== undefined) {
    out.oauth = { ...oauth, client_secret: HIDDEN_VALUE };
  }
  return out;
}

const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export class ConfigFile {
  private queue: Promise<unknown> = Promise.resolve();
  /** The text of the last write: a reload of exactly this text is this file's own change. */
  lastWritten?: string;

  /**
   * `onWritten` applies the written file at once (the watcher's reload), before the answer;
   * `mayCreate`: the file did not exist when the gateway started (the default place), so the
   * first write creates it. Otherwise a file gone since is never replaced by one holding only
   * the change (every other server and setting would go with it).
   */
  constructor(
    readonly file: string,
    private readonly options: { listen?: string; onWritten?: () => void; mayCreate?: boolean } = {},
  ) {}

  /** The servers as the file has them now. */
  servers(): Located[] {
    return serverEntries(this.read().doc);
  }

  server(name: string): Located | undefined {
    return findServer(this.read().doc, name);
  }

  /** Adds a server (its `name` not taken). */
  add(entry: RawEntry): Promise<EditResult> {
    checkFields(entry);
    if (typeof entry.name !== 'string' || entry.name === '') {
      throw new ConfigEditError(400, 'field "name" is required: the server\'s name', 'name');
    }
    if (entry.name === '__proto__') {
      throw new ConfigEditError(400, 'field "name" must not be "__proto__"', 'name');
    }
    return this.write((text, doc) => {
      if (findServer(doc, entry.name as string)) {
        throw new ConfigEditError(409, `a server named "${entry.name}" exists already`, 'name');
      }
      const at = insertion(doc, entry);
      return { text: edit(text, at.path, at.value, at.arrayInsertion), name: String(entry.name) };
    });
  }

  /**
   * Sets the fields of `change` on server `name` (`null` removes one); `base` is the revision
   * the caller read: when the file's entry is another by now, the change still wins and the
   * answer reports the values it replaced.
   */
  update(name: string, change: RawEntry, base?: string): Promise<EditResult> {
    checkFields(change);
    if ('name' in change && change.name !== name) {
      throw new ConfigEditError(
        400,
        'field "name" cannot be changed: add the server under the new name and delete this one',
        'name',
      );
    }
    return this.write((text, doc) => {
      const found = this.mustFind(text, doc, name);
      let next = text;
      for (const [field, value] of Object.entries(change)) {
        if (field === 'name') continue;
        const kept = keptSecrets(field, value, found.entry[field]);
        next = edit(next, [...found.path, field], value === null ? undefined : kept);
      }
      return { text: next, name, before: found, base };
    });
  }

  remove(name: string): Promise<EditResult> {
    return this.write((text, doc) => {
      const found = this.mustFind(text, doc, name);
      return { text: edit(text, found.path, undefined), name, removed: found.entry };
    });
  }

  private mustFind(text: string, doc: unknown, name: string): Located {
    const found = findServer(doc, name);
    if (!found) throw new ConfigEditError(404, `no server "${name}" in ${this.file}`);
    // JSON.parse keeps the last of two equal keys, an in-place edit would change the first.
    if (namedTwice(text, name)) {
      throw new ConfigEditError(
        409,
        `${this.file} names the server "${name}" twice in "mcpServers"; remove one by hand first`,
      );
    }
    return found;
  }

  private read(): { text: string; doc: unknown } {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (!this.options.mayCreate) {
        throw new ConfigEditError(
          409,
          `the config file ${this.file} is gone (moved or deleted); put it back, then try again`,
        );
      }
      text = '{}\n';
    }
    try {
      return { text, doc: JSON.parse(text) };
    } catch (error) {
      throw new ConfigEditError(
        409,
        `${this.file} is not valid JSON now (${(error as Error).message}); fix it by hand first, then try again`,
      );
    }
  }

  /** One write at a time, each on the file as it is then; the plan throws to refuse. */
  private write(
    plan: (
      text: string,
      doc: unknown,
    ) => { text: string; name: string; before?: Located; base?: string; removed?: RawEntry },
  ): Promise<EditResult> {
    const run = async (): Promise<EditResult> => {
      for (let attempt = 1; ; attempt++) {
        const { text, doc } = this.read();
        const planned = plan(text, doc);
        this.validate(planned.text);
        if (!this.replace(text, planned.text)) {
          if (attempt < WRITE_ATTEMPTS) continue;
          throw new ConfigEditError(
            409,
            `${this.file} kept changing while this change was written (${WRITE_ATTEMPTS} tries); nothing was written, try again`,
          );
        }
        this.options.onWritten?.();
        const after = planned.removed ?? findServer(JSON.parse(planned.text), planned.name)!.entry;
        return { entry: after, revision: revisionOf(after), ...replacedBy(planned) };
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => {});
    return result;
  }

  /** Refuses a text that is not a valid config, naming the field. */
  private validate(text: string): ResolvedConfig {
    try {
      return parseConfig(text, this.file, this.options.listen);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const message = error.message.startsWith(`${this.file}: `)
        ? error.message.slice(this.file.length + 2)
        : error.message;
      throw new ConfigEditError(400, `the config would not be valid: ${message}`, error.field);
    }
  }

  /** Writes `next` unless the file is no longer `was`; false when it changed meanwhile. */
  private replace(was: string, next: string): boolean {
    const target = fs.existsSync(this.file) ? fs.realpathSync(this.file) : this.file;
    const temporary = path.join(
      path.dirname(target),
      `.${path.basename(target)}.${process.pid}.codemux-write`,
    );
    const mode = fs.existsSync(target) ? fs.statSync(target).mode & 0o777 : 0o600;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(temporary, next, { mode });
    // The umask narrowed the mode given above: the file keeps its own.
    fs.chmodSync(temporary, mode);
    const now = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '{}\n';
    if (now !== was) {
      fs.rmSync(temporary, { force: true });
      return false;
    }
    fs.renameSync(temporary, target);
    this.lastWritten = next;
    return true;
  }
}

/** The replaced hand edit, when the entry changed after the caller's `base`. */
function replacedBy(planned: { before?: Located; base?: string }): Pick<EditResult, 'replaced'> {
  const { before, base } = planned;
  if (!before || base === undefined || before.revision === base) return {};
  return { replaced: { revision: before.revision, entry: shownEntry(before.entry) } };
}

/** Refuses keys that are not server fields (a typo would otherwise be kept and ignored). */
function checkFields(change: RawEntry): void {
  for (const key of Object.keys(change)) {
    if (!SERVER_FIELDS.has(key)) {
      throw new ConfigEditError(
        400,
        `field "${key}" is not a server field; the fields are ${[...SERVER_FIELDS].join(', ')}`,
        key,
      );
    }
  }
}

/**
 * `value` of `field` with each HIDDEN_VALUE (an `env` or `headers` value, `oauth.client_secret`)
 * replaced by the value the file has; one the file does not have is refused.
 */
function keptSecrets(field: string, value: unknown, current: unknown): unknown {
  if (!isMap(value)) return value;
  const old = isMap(current) ? current : {};
  const secret = (key: string) =>
    (SECRET_MAPS as readonly string[]).includes(field) ||
    (field === 'oauth' && key === 'client_secret');
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => {
      if (v !== HIDDEN_VALUE || !secret(key)) return [key, v];
      if (!(key in old)) {
        throw new ConfigEditError(
          400,
          `field "${field}.${key}": ${HIDDEN_VALUE} stands for the saved value, and there is none for ${key}; type its value`,
          `${field}.${key}`,
        );
      }
      return [key, old[key]];
    }),
  );
}

function edit(text: string, at: JSONPath, value: unknown, isArrayInsertion = false): string {
  const indent = /^([ \t]+)"/m.exec(text)?.[1] ?? '  ';
  const edits = modify(text, at, value, {
    isArrayInsertion,
    formattingOptions: {
      insertSpaces: !indent.includes('\t'),
      tabSize: indent.includes('\t') ? 1 : indent.length,
      eol: '\n',
    },
  });
  return applyEdits(text, edits);
}
