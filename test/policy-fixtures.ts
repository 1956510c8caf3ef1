/** @module A fixture for tool-policy tests: the mutable server with annotated tools, and a config over it. */
import fs from 'node:fs';
import path from 'node:path';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { ROOT, writeConfig } from './helpers.ts';

export const MUTABLE = path.join(ROOT, 'test', 'fixtures', 'mutable-server.mjs');
const PATH_SCHEMA = { type: 'object', properties: { path: { type: 'string' } } };
export const ANNOTATED_TOOLS = [
  {
    name: 'wipe',
    description: 'Wipe a path',
    inputSchema: PATH_SCHEMA,
    annotations: { destructiveHint: true },
  },
  {
    name: 'read',
    description: 'Read a path',
    inputSchema: PATH_SCHEMA,
    annotations: { readOnlyHint: true },
  },
  { name: 'write', description: 'Write a path', inputSchema: PATH_SCHEMA },
];

/**
 * Writes a config over the mutable server listing `tools`, with `extra` config (tool_pinning
 * off, so the policy alone decides, unless `extra` says otherwise); with `arrivals`, its
 * upstream writes each call it receives to that file in the config's folder.
 */
function mutableConfig(
  extra: Record<string, unknown>,
  tools: readonly object[],
  arrivals?: string,
): string {
  const configFile = writeConfig({});
  const dir = path.dirname(configFile);
  const toolsFile = path.join(dir, 'tools.json');
  fs.writeFileSync(toolsFile, JSON.stringify(tools));
  const env: Record<string, string> = { MUTABLE_TOOLS_FILE: toolsFile };
  if (arrivals) {
    env.MUTABLE_ARRIVALS_FILE = path.join(dir, arrivals);
    fs.writeFileSync(env.MUTABLE_ARRIVALS_FILE, '');
  }
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      tool_pinning: 'off',
      ...extra,
      mcpServers: [{ name: 'mut', command: process.execPath, args: [MUTABLE], env }],
    }),
  );
  return configFile;
}

/**
 * A config over the mutable server listing `tools`, with `extra` config (tool_pinning off, so
 * the policy alone decides, unless `extra` says otherwise).
 */
export function policyConfig(
  extra: Record<string, unknown>,
  tools: readonly object[] = ANNOTATED_TOOLS,
): string {
  return mutableConfig(extra, tools);
}

/** A config over the mutable server (ANNOTATED_TOOLS) that counts the calls it receives. */
export interface CountedUpstream {
  configFile: string;
  /** The tools the upstream received so far, in order, by name. */
  arrived(): string[];
}

/** policyConfig over ANNOTATED_TOOLS whose upstream writes each call it receives to a file. */
export function countedUpstreamConfig(extra: Record<string, unknown>): CountedUpstream {
  const configFile = mutableConfig(extra, ANNOTATED_TOOLS, 'arrivals.txt');
  const arrivals = path.join(path.dirname(configFile), 'arrivals.txt');
  const arrived = () =>
    fs
      .readFileSync(arrivals, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ')[0]!);
  return { configFile, arrived };
}

/**
 * One `codemux serve` per id over the mutable server, all on `databaseUrl`, started one after
 * the other and ready: the cluster tests of tool policy (pinning off, approvals a minute long).
 */
export async function startPolicyCluster(
  databaseUrl: string,
  ids: readonly string[],
  apiKey: string,
  env?: NodeJS.ProcessEnv,
): Promise<RunningGateway[]> {
  const gateways: RunningGateway[] = [];
  for (const id of ids) {
    const file = writeConfig({});
    const toolsFile = path.join(path.dirname(file), 'tools.json');
    fs.writeFileSync(toolsFile, JSON.stringify(ANNOTATED_TOOLS));
    fs.writeFileSync(
      file,
      JSON.stringify({
        api_key: apiKey,
        database_url: databaseUrl,
        instance_id: id,
        tool_pinning: 'off',
        code_execution_pool_size: 2,
        tool_policy: { approval_timeout_ms: 60_000 },
        mcpServers: [
          {
            name: 'mut',
            command: process.execPath,
            args: [MUTABLE],
            env: { MUTABLE_TOOLS_FILE: toolsFile },
          },
        ],
      }),
    );
    const g = await startGateway(file, env ? { env } : {});
    await waitUntilReady(g);
    gateways.push(g);
  }
  return gateways;
}
