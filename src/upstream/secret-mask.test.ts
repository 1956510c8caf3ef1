import { describe, expect, it } from 'vitest';
import type { ServerConfig } from '../config/index.ts';
import { credentialValues, excerpt, MASK, SecretMask, secretValues } from './secret-mask.ts';

const config = (extra: Partial<ServerConfig>) =>
  ({ name: 's', env: {}, args: [], headers: {}, ...extra }) as ServerConfig;

describe('secretValues', () => {
  it.each([
    // env key, value, masked
    ['MODE', 'crash', false],
    ['LEVEL', 'debug', false],
    ['REGION', 'eu-west-1', false],
    ['DATA_DIR', '/srv/data/of/the/server', true],
    ['API_KEY', 'k-1234', true],
    ['GITHUB_TOKEN', 'ghp_x', true],
    ['DB_PASSWORD', 'hunter2', true],
    ['CLIENT_SECRET', 'shh!', true],
    ['BASIC_AUTH', 'user:pw', true],
    ['AWS_CREDENTIALS', 'creds', true],
    ['API_KEY', 'abc', false],
  ])('env %s=%s is masked: %s', (key, value, masked) => {
    expect(secretValues(config({ env: { [key]: value } }), {}).includes(value)).toBe(masked);
  });

  it.each([
    // env key, value, a credential (masked in results too)
    ['DATA_DIR', '/srv/data/of/the/server', false],
    ['MODE', 'crash', false],
    ['API_KEY', 'k-1234', true],
    ['DB_PASSWORD', 'hunter2', true],
  ])('env %s=%s is a credential: %s', (key, value, credential) => {
    expect(credentialValues(config({ env: { [key]: value } }), {}).includes(value)).toBe(
      credential,
    );
  });

  it('masks every header value (and the credential of a scheme-prefixed one) and the OAuth client secret', () => {
    const values = secretValues(
      config({
        headers: { 'X-Team': 'blue', Authorization: 'Bearer t0k3n-xyz' },
        oauth: { clientSecret: 'cs-123456' } as ServerConfig['oauth'],
      }),
      {},
    );
    expect(values).toEqual(
      expect.arrayContaining(['blue', 'Bearer t0k3n-xyz', 't0k3n-xyz', 'cs-123456']),
    );
  });

  it('counts a header as a credential (masked in results) by a secret-looking name or a long value', () => {
    const values = credentialValues(
      config({
        headers: {
          'X-Team': 'blue',
          'X-Tenant': 'tenant-0123456789abcdef',
          'X-Api-Key': 'k-42',
          Authorization: 'Bearer t0k3n-xyz',
        },
      }),
      {},
    );
    expect(values).not.toContain('blue');
    expect(values).toEqual(
      expect.arrayContaining(['tenant-0123456789abcdef', 'k-42', 'Bearer t0k3n-xyz', 't0k3n-xyz']),
    );
  });
});

describe('SecretMask', () => {
  it('masks configured secrets and the OAuth tokens sent, the longest first, and keeps short words', () => {
    const mask = new SecretMask().configure(config({ env: { MODE: 'crash', API_KEY: 'key-1' } }));
    mask.credentialSent('access-token-1');
    mask.credentialSent('access-token-12');
    expect(mask.mask('nc-crashy crash key-1 access-token-12 access-token-1')).toBe(
      `nc-crashy crash ${MASK} ${MASK} ${MASK}`,
    );
  });

  it('masks only the credentials out of a result: a long plain env value stays', () => {
    const mask = new SecretMask().configure(
      config({ env: { DATA_DIR: '/srv/data/of/the/server', API_KEY: 'key-1' } }),
    );
    mask.credentialSent('refresh-token-9');
    const text = 'key-1 /srv/data/of/the/server refresh-token-9';
    expect(mask.maskCredentials(text)).toBe(`${MASK} /srv/data/of/the/server ${MASK}`);
    expect(mask.mask(text)).toBe(`${MASK} ${MASK} ${MASK}`);
  });

  it('masks before it cuts, so no part of a secret is left at the cut', () => {
    const mask = new SecretMask().configure(config({ headers: { 'X-Key': 'the-secret-value' } }));
    const cut = mask.excerpt(`${'x'.repeat(500)}the-secret-value${'y'.repeat(100)}`, 510);
    expect(cut).not.toContain('the-');
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(510 + Buffer.byteLength('…[cut]'));
  });
});

describe('excerpt', () => {
  it('keeps short text whole and cuts long text at a character boundary', () => {
    expect(excerpt('short', 512)).toBe('short');
    expect(excerpt('ééé', 3)).toBe('é…[cut]');
  });
});
