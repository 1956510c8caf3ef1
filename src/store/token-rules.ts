/** @module What every token store shares: the secret's shape, its hash, and the checks on a new token. */
import { createHash, randomBytes } from 'node:crypto';
import { CodemuxError } from '../errors/index.ts';

export const TOKEN_PREFIX = 'cmx_';
const TOKEN_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** Only this is stored: the secret cannot be recovered from the database. */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** A new secret. */
export const newTokenSecret = () => TOKEN_PREFIX + randomBytes(32).toString('base64url');

/** Throws INVALID_TOKEN_NAME / INVALID_TOKEN_SERVERS for a token that cannot be created. */
export function checkNewToken(name: string, servers: string[], codeTools: string[]): void {
  if (!TOKEN_NAME_PATTERN.test(name)) {
    throw new CodemuxError(
      'INVALID_TOKEN_NAME',
      `token name "${name}" must be 1-64 characters of A-Z, a-z, 0-9, _, . and -`,
    );
  }
  if (servers.length === 0 && codeTools.length === 0) {
    throw new CodemuxError(
      'INVALID_TOKEN_SERVERS',
      'an agent token needs at least one server (--servers a,b) or code tool (--code-tools a,b)',
    );
  }
}

export const tokenExists = (name: string) =>
  new CodemuxError('TOKEN_EXISTS', `a token named "${name}" already exists; revoke it first`);
