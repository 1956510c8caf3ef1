import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CodemuxError } from '../errors/index.ts';
import { SealError, SecretBox } from './secret-box.ts';

const AAD = 'oauth-tokens:github';
const TOKENS = JSON.stringify({ access_token: 'at-é-✓', refresh_token: 'rt', expires_in: 3600 });

/** Flips one bit of the character at `index` of a base64url text, keeping it base64url. */
function flipChar(text: string, index: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const at = alphabet.indexOf(text[index]!);
  return text.slice(0, index) + alphabet[at ^ 0b100000] + text.slice(index + 1);
}

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('opens what it sealed, for the same place', () => {
    for (const text of [TOKENS, '', 'x'.repeat(100_000)]) {
      const sealed = box.seal(text, AAD);
      expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
      expect(box.open(sealed, AAD)).toBe(text);
    }
  });

  it('never writes the same sealed text twice, nor the plaintext', () => {
    const one = box.seal(TOKENS, AAD);
    const two = box.seal(TOKENS, AAD);
    expect(one).not.toBe(two);
    expect(one.split('.')[1]).not.toBe(two.split('.')[1]);
    expect(one).not.toContain('access_token');
    expect(box.open(two, AAD)).toBe(TOKENS);
  });

  it('refuses a value sealed with another key, naming the fix', () => {
    const sealed = new SecretBox(randomBytes(32)).seal(TOKENS, AAD);
    expect(() => box.open(sealed, AAD)).toThrow(SealError);
    expect(() => box.open(sealed, AAD)).toThrow(
      'sealed with another key (set the same CODEMUX_SECRET_KEY on every instance) or altered',
    );
  });

  it('refuses a value moved to another place (another AAD)', () => {
    const sealed = box.seal(TOKENS, AAD);
    expect(() => box.open(sealed, 'oauth-tokens:gitlab')).toThrow(SealError);
    expect(() => box.open(sealed, 'oauth-client:github')).toThrow(/does not open/);
  });

  it('refuses a value with any byte altered: IV, ciphertext or tag', () => {
    const sealed = box.seal(TOKENS, AAD);
    const [version, iv, body] = sealed.split('.') as [string, string, string];
    const altered = [
      `${version}.${flipChar(iv, 3)}.${body}`,
      `${version}.${iv}.${flipChar(body, 0)}`,
      `${version}.${iv}.${flipChar(body, Math.floor(body.length / 2))}`,
      // The tag's last full character (the very last one carries padding bits).
      `${version}.${iv}.${flipChar(body, body.length - 2)}`,
    ];
    for (const text of altered) expect(() => box.open(text, AAD), text).toThrow(SealError);
  });

  it.each([
    ['an empty text', ''],
    ['plain text', 'hello'],
    ['two parts', 'v1.AAAAAAAAAAAAAAAA'],
    ['four parts', 'v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.x'],
    ['an unknown version', 'v2.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA'],
    ['a short IV', 'v1.AAAA.AAAAAAAAAAAAAAAAAAAAAA'],
    ['a body shorter than a tag', 'v1.AAAAAAAAAAAAAAAA.AAAA'],
    ['standard base64', 'v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAA+/='],
    ['padding', 'v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA=='],
    ['a non-canonical last character', 'v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAB'],
  ])('refuses %s with a SealError', (_label, text) => {
    expect(() => box.open(text, AAD)).toThrow(SealError);
  });

  it('is a CodemuxError with a code, and its message never holds the key', () => {
    const key = randomBytes(32);
    const other = new SecretBox(key);
    try {
      other.open(box.seal(TOKENS, AAD), AAD);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CodemuxError);
      expect((error as SealError).code).toBe('SEALED_VALUE_UNREADABLE');
      expect((error as Error).message).not.toContain(key.toString('hex'));
      expect((error as Error).message).toContain(AAD);
    }
  });

  it('takes only a 32-byte key', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow('32 bytes, not 16');
    expect(() => new SecretBox(Buffer.alloc(0))).toThrow('32 bytes, not 0');
  });

  it('keeps its own copy of the key', () => {
    const key = randomBytes(32);
    const own = new SecretBox(key);
    const sealed = own.seal('x', AAD);
    key.fill(0);
    expect(own.open(sealed, AAD)).toBe('x');
  });
});
