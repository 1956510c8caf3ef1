// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are config text with ${VAR} references
import { describe, expect, it } from 'vitest';
import { resolveConfig } from './resolve.ts';

const resolve = (server: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
  resolveConfig(
    { mcpServers: [{ name: 'gh', url: 'https://mcp.example.com/mcp', ...server }] },
    { baseDir: '/etc/codemux', source: 'cfg.json', env },
  );

const refusal = (server: Record<string, unknown>, env?: NodeJS.ProcessEnv) => {
  try {
    resolve(server, env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the config was accepted');
};

describe('a server\'s "oauth"', () => {
  it('takes client_id, client_secret (from the environment), scopes and redirect_uri', () => {
    const config = resolve(
      {
        oauth: {
          client_id: 'codemux-app',
          client_secret: '${GH_SECRET}',
          scopes: ['repo', 'read:user'],
          redirect_uri: 'https://codemux.example.com/oauth/callback',
        },
      },
      { GH_SECRET: 's3cret' },
    );
    expect(config.servers[0]!.oauth).toEqual({
      clientId: 'codemux-app',
      clientSecret: 's3cret',
      scopes: ['repo', 'read:user'],
      redirectUri: 'https://codemux.example.com/oauth/callback',
    });
    expect(resolve({}).servers[0]!.oauth).toBeUndefined();
    expect(resolve({ oauth: {} }).servers[0]!.oauth).toEqual({});
  });

  it('takes refresh_min_interval_ms within its bounds (the refresh floor, default 30 s)', () => {
    expect(resolve({ oauth: { refresh_min_interval_ms: 1000 } }).servers[0]!.oauth).toEqual({
      refreshMinIntervalMs: 1000,
    });
    expect(refusal({ oauth: { refresh_min_interval_ms: 0 } })).toContain(
      '"mcpServers[0].oauth.refresh_min_interval_ms" must be an integer from 1000 to 3600000',
    );
  });

  it('refuses what cannot work, naming the field', () => {
    expect(refusal({ url: undefined, command: 'node', oauth: {} })).toContain(
      '"mcpServers[0].oauth" applies to http and sse servers only',
    );
    expect(refusal({ oauth: { client_secret: 'x' } })).toContain(
      '"mcpServers[0].oauth.client_secret" needs "client_id"',
    );
    expect(refusal({ oauth: { scopes: ['repo read'] } })).toContain(
      '"mcpServers[0].oauth.scopes[0]" must be one scope token',
    );
    expect(refusal({ oauth: { redirect_uri: 'https://x.example.com/cb' } })).toContain(
      'must end in /oauth/callback',
    );
    expect(refusal({ oauth: 'yes' })).toContain('"mcpServers[0].oauth" must be an object');
    expect(refusal({ oauth: { client_secret: 'a${B', client_id: 'x' } })).toContain(
      '"mcpServers[0].oauth.client_secret" has a "${" that is not a variable reference',
    );
  });

  it('warns of an unknown key inside it with the nearest one', () => {
    const config = resolve({ oauth: { client_ids: 'x' } });
    expect(config.warnings.join('\n')).toContain('unknown key "client_ids" in mcpServers[0].oauth');
    expect(config.warnings.join('\n')).toContain('client_id');
  });
});

describe('"oauth_client_metadata_url"', () => {
  const top = (url: unknown) => () =>
    resolveConfig(
      { oauth_client_metadata_url: url },
      { baseDir: '/etc/codemux', source: 'cfg.json', env: {} },
    );

  it.each([
    ['https://codemux.example.com/oauth/client-metadata.json', true],
    ['https://codemux.example.com/client.json', true],
    ['http://codemux.example.com/oauth/client-metadata.json', false],
    ['https://codemux.example.com/', false],
    ['not a url', false],
  ])('%s is accepted: %s', (url, ok) => {
    if (ok) expect(top(url)().oauthClientMetadataUrl).toBe(url);
    else expect(top(url)).toThrow('"oauth_client_metadata_url" must');
  });

  it('is absent by default', () => {
    expect(top(undefined)().oauthClientMetadataUrl).toBeUndefined();
  });
});
