/**
 * @module Seals short secrets at rest with AES-256-GCM: a random IV per seal, the tag checked
 * on open, and associated data (AAD) that binds a sealed value to where it is kept.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { CodemuxError } from '../errors/index.ts';

/** The format written by `seal`: `v1.<base64url IV>.<base64url ciphertext and tag>`. */
const FORMAT_VERSION = 'v1';
const CIPHER = 'aes-256-gcm';
export const SECRET_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** A sealed value that cannot be opened: another key, altered text, or not a sealed value at all. */
export class SealError extends CodemuxError {
  constructor(message: string) {
    super('SEALED_VALUE_UNREADABLE', message);
  }
}

/** Strict base64url (no padding, canonical), so an altered character never decodes quietly. */
function decodePart(text: string): Buffer | undefined {
  if (!BASE64URL.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

/** Seals and opens text with one 32-byte key. */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== SECRET_KEY_BYTES) {
      throw new Error(`a SecretBox key is ${SECRET_KEY_BYTES} bytes, not ${key.length}`);
    }
    this.#key = Buffer.from(key);
  }

  /** Seals `plaintext` for the place `aad` names (e.g. `oauth-tokens:<server>`); never the same text twice. */
  seal(plaintext: string, aad: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(CIPHER, this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const body = Buffer.concat([
      cipher.update(plaintext, 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    return `${FORMAT_VERSION}.${iv.toString('base64url')}.${body.toString('base64url')}`;
  }

  /** The plaintext sealed for `aad`; a SealError when it cannot be opened (nothing is returned unchecked). */
  open(sealed: string, aad: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 3) {
      throw new SealError(
        `not a sealed value (expected ${FORMAT_VERSION}.<iv>.<ciphertext>) for ${aad}`,
      );
    }
    const [version, ivText, bodyText] = parts as [string, string, string];
    if (version !== FORMAT_VERSION) {
      throw new SealError(
        `a sealed value of unknown format "${version.slice(0, 16)}" for ${aad} (this codemux reads ${FORMAT_VERSION})`,
      );
    }
    const iv = decodePart(ivText);
    const body = decodePart(bodyText);
    if (!iv || iv.length !== IV_BYTES || !body || body.length < TAG_BYTES) {
      throw new SealError(`a malformed sealed value for ${aad}: altered or cut`);
    }
    const decipher = createDecipheriv(CIPHER, this.#key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    try {
      const plain = Buffer.concat([
        decipher.update(body.subarray(0, body.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return plain.toString('utf8');
    } catch {
      throw new SealError(
        `the sealed value for ${aad} does not open: sealed with another key (set the same CODEMUX_SECRET_KEY on every instance) or altered`,
      );
    }
  }
}
