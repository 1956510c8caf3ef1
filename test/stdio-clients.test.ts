import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { BIN, exampleCopy, FIXTURE_SERVER, writeConfig } from './helpers.ts';

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/** Starts `codemux stdio` the way desktop clients do: absolute paths, cwd `/`. */
async function connect(configFile: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'stdio', '--config', configFile],
    cwd: '/',
    stderr: 'pipe',
  });
  const client = new Client({ name: 'codemux-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function description(client: Client): Promise<string> {
  const { tools } = await client.listTools();
  return tools[0]!.description ?? '';
}

describe('codemux stdio as desktop clients start it', () => {
  it('works from cwd / with the example config given by absolute path', async () => {
    // A copy of the example as shipped: what it writes (data/) stays out of the clone.
    const example = exampleCopy();
    onTestFinished(example.remove);
    const client = await connect(example.config);
    // The first tools/list waited for the servers: their tools are listed.
    expect(await description(client)).toMatch(/- everything: .*echo/);
    const result = await client.callTool({
      name: 'code_execution',
      arguments: { code: "call_tool('everything', 'echo', {message: 'from /'})" },
    });
    const envelope = JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
    expect(envelope.value.result.content[0].text).toBe('Echo: from /');
  });

  it('lists a slow server once ready and a failed one with its reason', async () => {
    const slow = `setTimeout(() => import(${JSON.stringify(pathToFileURL(FIXTURE_SERVER).href)}), 1500)`;
    const config = writeConfig({
      startup_wait_ms: 15_000,
      mcpServers: [
        { name: 'slow', command: process.execPath, args: ['-e', slow] },
        {
          name: 'broken',
          command: process.execPath,
          args: ['-e', "console.error('missing GITHUB_TOKEN'); process.exit(1)"],
        },
      ],
    });
    const text = await description(await connect(config));
    expect(text).toMatch(/- slow: .*sleep/);
    expect(text).toMatch(
      /- broken \(failed: server 'broken' failed to start: .*missing GITHUB_TOKEN/,
    );
    expect(text).not.toContain('not connected yet');
  });

  it('answers the first tools/list after startup_wait_ms even if a server never starts', async () => {
    const config = writeConfig({
      startup_wait_ms: 300,
      mcpServers: [
        { name: 'hung', command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
      ],
    });
    const text = await description(await connect(config));
    expect(text).toContain('- hung (still connecting; its tools are listed once it is ready)');
  });
});
