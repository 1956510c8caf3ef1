import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SERVER, SERVERS } from '../../test/helpers.ts';
import { type RunningServer, startEverything } from '../../test/http-servers.ts';
import { resolveConfig } from '../config/index.ts';
import { silentLogger } from '../util/logger.ts';
import { UpstreamRegistry } from './registry.ts';

let http: RunningServer;
let sse: RunningServer;
let registry: UpstreamRegistry;

beforeAll(async () => {
  [http, sse] = await Promise.all([startEverything('streamableHttp'), startEverything('sse')]);
  const config = resolveConfig(
    {
      mcpServers: [
        SERVERS.everything,
        { name: 'everything-http', url: http.url },
        { name: 'everything-sse', protocol: 'sse', url: sse.url },
        { name: 'slow', command: process.execPath, args: [FIXTURE_SERVER], call_timeout_ms: 100 },
        {
          name: 'talkative',
          command: process.execPath,
          args: [FIXTURE_SERVER],
          env: { API_TOKEN: 'tok-log-0123-never-shown' },
        },
      ],
    },
    { baseDir: process.cwd() },
  );
  registry = new UpstreamRegistry(config.servers, silentLogger());
}, 30_000);

afterAll(async () => {
  await registry.stop();
  await Promise.all([http.stop(), sse.stop()]);
});

// One contract, every transport.
describe.each(['everything', 'everything-http', 'everything-sse'])('upstream %s', (name) => {
  it('lists tools and calls one', async () => {
    const outcome = await registry.call(name, 'echo', { message: 'hi' }, {});
    expect(outcome).toEqual({
      ok: true,
      result: { content: [{ type: 'text', text: 'Echo: hi' }] },
    });
    expect(registry.tools(name).some((t) => t.name === 'get-sum')).toBe(true);
  });
  it('names an unknown tool', async () => {
    expect(await registry.call(name, 'nope', {}, {})).toEqual({
      ok: false,
      code: 'TOOL_NOT_FOUND',
      message: `tool not found: ${name}.nope`,
    });
  });
  it('passes an upstream validation failure back as a failed call', async () => {
    const outcome = await registry.call(name, 'get-sum', { a: 'x' }, {});
    expect(outcome.ok ? outcome.result.isError : true).toBe(true);
  });
});

describe('log notifications', () => {
  it("mask the server's credentials, as its stderr is (issue 33, item 1)", async () => {
    const heard = new Promise<unknown>((resolve) =>
      registry.on('log', (server: string, message: { data: unknown }) => {
        if (server === 'talkative') resolve(message.data);
      }),
    );
    await registry.call(
      'talkative',
      'log',
      { level: 'warning', data: 'calling with tok-log-0123-never-shown' },
      {},
    );
    expect(await heard).toBe('calling with [redacted]');
  });
});

describe('per-call limits', () => {
  it('applies call_timeout_ms', async () => {
    const outcome = await registry.call('slow', 'sleep', { ms: 2000 }, {});
    expect(outcome).toMatchObject({ ok: false, code: 'UPSTREAM_TIMEOUT' });
  });
  it('cancels a call when its signal aborts', async () => {
    const controller = new AbortController();
    const pending = registry.call('slow', 'sleep', { ms: 50 }, { signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({
      ok: false,
      code: 'UPSTREAM_ERROR',
      message: expect.stringContaining('cancelled'),
    });
  });
});

describe('listeners', () => {
  it('takes a log listener per MCP session past ten without a leak warning', async () => {
    const registry = new UpstreamRegistry([], silentLogger());
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 20; i++) registry.on('log', () => {});
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});
