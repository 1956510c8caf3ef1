import { describe, expect, it } from 'vitest';
import { DEFAULT_ACTIVITY_REDACT_KEYS } from '../../config/defaults.ts';
import { cutForActivity, REDACTED } from './cut.ts';
import { secretKeyTest } from './redact.ts';

describe('secret-looking keys', () => {
  const secret = secretKeyTest(DEFAULT_ACTIVITY_REDACT_KEYS);
  it.each([
    'password',
    'Password',
    'PASSWORD',
    'db_password',
    'passwordHash',
    'token',
    'access_token',
    'accessToken',
    'refresh-token',
    'X-Auth-Token',
    'accesstoken',
    'secret',
    'client_secret',
    'clientSecret',
    'api_key',
    'apiKey',
    'ApiKey',
    'APIKey',
    'API_KEY',
    'x-api-key',
    'apikey',
    'authorization',
    'Authorization',
    'proxy-authorization',
  ])('matches %s', (key) => {
    expect(secret(key)).toBe(true);
  });

  it.each([
    'max_tokens',
    'tokens',
    'tokenizer',
    'keys',
    'key',
    'api',
    'name',
    'author',
    'passwords',
    'secretary',
  ])('leaves %s alone', (key) => {
    expect(secret(key)).toBe(false);
  });

  it('matches the names it is given, however they are written', () => {
    const test = secretKeyTest(['Session-ID', 'cookie']);
    expect(['session_id', 'sessionId', 'Cookie', 'set_cookie'].map(test)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(test('password')).toBe(false);
  });
});

describe('cutForActivity with redaction', () => {
  it('replaces values under secret keys at any depth, in objects and arrays', () => {
    const args = {
      user: 'ada',
      password: 'hunter2',
      headers: { Authorization: 'Bearer abc', accept: 'json' },
      accounts: [{ apiKey: 'k1', name: 'a' }, { nested: { deeper: { access_token: { v: 1 } } } }],
      max_tokens: 100,
    };
    expect(cutForActivity(args, DEFAULT_ACTIVITY_REDACT_KEYS)).toEqual({
      user: 'ada',
      password: REDACTED,
      headers: { Authorization: REDACTED, accept: 'json' },
      accounts: [
        { apiKey: REDACTED, name: 'a' },
        { nested: { deeper: { access_token: REDACTED } } },
      ],
      max_tokens: 100,
    });
    // The caller's value is left as it was.
    expect(args.password).toBe('hunter2');
  });

  it('redacts before cutting: a secret never shows in the cut text', () => {
    const cut = cutForActivity(
      { token: 'SECRET-VALUE', big: 'x'.repeat(20_000) },
      DEFAULT_ACTIVITY_REDACT_KEYS,
    );
    expect(cut).toMatch(/^\{"token":"\[redacted\]","big":"x+…\[cut: /);
  });

  it('redacts nothing with an empty list', () => {
    expect(cutForActivity({ password: 'p' }, [])).toEqual({ password: 'p' });
  });
});
