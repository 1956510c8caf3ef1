/** @module `codemux servers list` at work: each upstream's state, from the gateway when one runs, else from the config. */
// The one module it needs, not the execution barrel (which loads the runtime).
import { policyCountsText } from '../execution/policy/tool-policy.ts';
import type { ServerStatus } from '../upstream/index.ts';
import { findGateway, gatewayRequest } from './gateway-client.ts';
import { loadConfigOrExit } from './load-config.ts';
import type { GatewayFlags } from './options.ts';
import { printJson } from './output.ts';
import { renderTable } from './table.ts';

type PolicyCounts = { ask: number; deny: number };

interface ListFlags extends GatewayFlags {
  config?: string;
  output?: string;
}

export async function run(flags: ListFlags): Promise<void> {
  const config = loadConfigOrExit(flags);
  if (!config) return;
  const gateway = await findGateway(config, flags);
  let servers: ServerStatus[];
  let source: string;
  // Tools are known only to a gateway that listed them: standalone there are no counts.
  let policy: PolicyCounts | undefined;
  if (gateway) {
    const { body } = await gatewayRequest(gateway, 'GET', '/api/v1/servers', { timeoutMs: 10_000 });
    ({ servers, policy } = body.value as { servers: ServerStatus[]; policy?: PolicyCounts });
    source = `the daemon at ${gateway.url}`;
  } else {
    servers = config.servers.map((s) => ({
      name: s.name,
      protocol: s.protocol,
      state: !s.enabled ? 'disabled' : s.quarantined ? 'quarantined' : 'idle',
      tools: 0,
    }));
    source = `${config.path} (no daemon running: states are from the config)`;
  }
  if (flags.output === 'json') {
    await printJson({ servers, ...(policy ? { policy } : {}) });
    return;
  }
  process.stdout.write(`Upstream servers from ${source} (${servers.length}):\n`);
  process.stdout.write(
    renderTable(
      ['NAME', 'PROTOCOL', 'STATE', 'TOOLS', 'LAST ERROR'],
      servers.map((s) => [
        s.name,
        s.protocol,
        s.state,
        gateway ? String(s.tools) : '-',
        s.last_error ?? '',
      ]),
    ),
  );
  if (policy) process.stdout.write(`tool_policy: ${policyCountsText(policy)}\n`);
  for (const s of servers.filter((s) => s.state === 'needs_auth')) {
    process.stdout.write(`${s.name} needs sign-in: run \`codemux auth login ${s.name}\`\n`);
  }
}
