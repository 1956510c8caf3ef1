/**
 * @module The key that seals upstream OAuth credentials at rest: $CODEMUX_SECRET_KEY, else a
 * key generated at first start and kept in `data_dir/secret_key` with owner-only permissions.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors/index.ts';
import { SECRET_KEY_BYTES } from '../util/secret-box.ts';

export const SECRET_KEY_FILE = 'secret_key';
export const SECRET_KEY_VARIABLE = 'CODEMUX_SECRET_KEY';
/** How long a reader waits for a key file another process created to hold its whole key. */
const KEY_FILE_WRITE_WAIT_MS = 1_000;
const KEY_FILE_POLL_MS = 10;

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
/** 32 bytes in base64 (43 characters, then one `=`) or base64url (the same, padding optional). */
const BASE64_KEY = /^(?:[A-Za-z0-9+/]{43}=?|[A-Za-z0-9_-]{43}=?)$/;
/** What a key file holds while its writer is between creating and writing it. */
const PARTLY_WRITTEN = /^[0-9a-f]{0,63}$/;

export interface SecretKey {
  key: Buffer;
  source: 'env' | 'file';
  /** The key file, when the key lives in one. */
  file?: string;
}

/** 32 bytes from 64 hex characters or base64/base64url; undefined for anything else. */
export function parseSecretKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (HEX_KEY.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (!BASE64_KEY.test(trimmed)) return undefined;
  // Node's base64 decoder reads both alphabets.
  const key = Buffer.from(trimmed, 'base64');
  return key.length === SECRET_KEY_BYTES ? key : undefined;
}

/**
 * The sealing key: $CODEMUX_SECRET_KEY when set (every instance of a cluster needs the same
 * one), else `<dataDir>/secret_key`, generated once. A value that is not a key is a ConfigError
 * naming where it came from; the value itself is never repeated.
 */
export function loadSecretKey(dataDir: string, env: NodeJS.ProcessEnv = process.env): SecretKey {
  const fromEnv = env[SECRET_KEY_VARIABLE];
  if (fromEnv) {
    const key = parseSecretKey(fromEnv);
    if (!key) {
      throw new ConfigError(
        `${SECRET_KEY_VARIABLE} is not a usable key: it needs ${SECRET_KEY_BYTES} random bytes written as 64 hex characters (or base64); make one with \`openssl rand -hex 32\``,
      );
    }
    return { key, source: 'env' };
  }
  const file = path.join(dataDir, SECRET_KEY_FILE);
  return readKeyFile(file) ?? createKeyFile(dataDir, file);
}

function createKeyFile(dataDir: string, file: string): SecretKey {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(SECRET_KEY_BYTES);
  try {
    fs.writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      const theirs = readKeyFile(file);
      if (theirs) return theirs;
    }
    throw error;
  }
  return { key, source: 'file', file };
}

/** The key in `file`, undefined when there is no file. */
function readKeyFile(file: string): SecretKey | undefined {
  const deadline = Date.now() + KEY_FILE_WRITE_WAIT_MS;
  for (;;) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const key = parseSecretKey(text);
    if (key) return { key, source: 'file', file };
    // Another process starting at the same moment may have created it and not yet written it.
    if (PARTLY_WRITTEN.test(text) && Date.now() < deadline) {
      sleepSync(KEY_FILE_POLL_MS);
      continue;
    }
    throw new ConfigError(
      `${file} does not hold a usable secret key (64 hex characters): restore it from a backup, or move it away and codemux makes a new one (then sign in to OAuth upstreams again: what the old key sealed cannot be opened)`,
    );
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
