/**
 * The MCP Inspector's CLI (the devDependency, run offline from node_modules) against a real
 * gateway: it keeps a URL path only when it ends in /mcp or /sse, so code mode is reachable at
 * /mcp/codemode/mcp and /mcp/codemode/sse.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from './gateway.ts';
import { ROOT, SERVERS, writeConfig } from './helpers.ts';

const INSPECTOR = path.join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'inspector',
  'cli',
  'build',
  'cli.js',
);

/** Runs `mcp-inspector --cli URL ...flags --method tools/list`; the listed tool names. */
function inspectorTools(url: string, flags: string[] = []): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [INSPECTOR, '--cli', url, ...flags, '--method', 'tools/list'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`inspector exited ${code}: ${stderr}${stdout}`));
      try {
        const listed = JSON.parse(stdout) as { tools: Array<{ name: string }> };
        resolve(listed.tools.map((t) => t.name));
      } catch {
        reject(new Error(`inspector printed no tool list: ${stderr}${stdout}`));
      }
    });
  });
}

let gateway: RunningGateway;

beforeAll(async () => {
  gateway = await startGateway(writeConfig({ mcpServers: [SERVERS.fixture] }));
});

afterAll(async () => {
  await gateway?.stop();
});

describe('the MCP Inspector CLI', () => {
  it.each([
    ['/mcp/codemode/mcp', [], ['execute']],
    ['/mcp/codemode/mcp', ['--transport', 'http'], ['execute']],
    ['/mcp/codemode/sse', [], ['execute']],
    ['/mcp', [], ['code_execution']],
  ])('lists the tools of %s %j', async (route, flags, tools) => {
    expect(await inspectorTools(`${gateway.url}${route}`, flags)).toEqual(tools);
  });
});
