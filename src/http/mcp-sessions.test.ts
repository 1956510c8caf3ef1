import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initializeBody } from '../../test/helpers.ts';
import { resolveConfig } from '../config/index.ts';
import { createRuntime, type Runtime } from '../execution/index.ts';
import { silentLogger } from '../util/logger.ts';
import { McpSessions } from './mcp-sessions.ts';

const ADMIN = { kind: 'admin' as const };
const initialize = (accept = 'application/json, text/event-stream') =>
  new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: initializeBody(),
  });

let runtime: Runtime;
beforeAll(() => {
  runtime = createRuntime(
    resolveConfig({ mcpServers: [], max_mcp_sessions: 2 }, { baseDir: '/tmp' }),
    silentLogger(),
    { warmWorkers: 0 },
  );
});
afterAll(() => runtime.stop());

describe('MCP sessions of one endpoint set', () => {
  it('holds max_mcp_sessions when initializes arrive together', async () => {
    const sessions = new McpSessions(runtime, silentLogger());
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => sessions.handle(initialize(), ADMIN, '')),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 503, 503, 503, 503]);
    expect(sessions.size).toBe(2);
    const refused = answers.find((a) => a.status === 503)!;
    expect((await refused.json()) as unknown).toMatchObject({
      error: { data: { code: 'TOO_MANY_SESSIONS', max_mcp_sessions: 2 } },
    });
    await sessions.closeAll();
  });

  it('leaves nothing behind for an initialize the transport refuses', async () => {
    const sessions = new McpSessions(runtime, silentLogger());
    const listeners = runtime.registry.listenerCount('log');
    for (let i = 0; i < 5; i++) {
      const answer = await sessions.handle(initialize('text/plain'), ADMIN, '');
      expect(answer.status).toBe(406);
    }
    // A refused initialize's server no longer listens for upstream logs to store.
    expect(runtime.registry.listenerCount('log')).toBe(listeners);
    expect(sessions.size).toBe(0);
    await sessions.closeAll();
  });
});
