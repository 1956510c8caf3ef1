/**
 * @module `codemux tools held|approve`: tool-definition pinning, through the running gateway
 * (the pins it holds are the ones that decide; a standalone approval would not reach it).
 */
import type { Command } from 'commander';
import { SERVER_NAME_PATTERN } from '../config/defaults.ts';
import type { HeldTool } from '../execution/index.ts';
import { CliError } from './cli-error.ts';
import type { Daemon } from './daemon-client.ts';
import { EXIT_FAILED } from './exit-codes.ts';
import { gatewayCall, requireGateway } from './gateway-command.ts';
import {
  addConfigOption,
  addGatewayOptions,
  addOutputOption,
  type GatewayFlags,
} from './options.ts';
import { printJson } from './output.ts';
import { renderTable } from './table.ts';

interface Flags extends GatewayFlags {
  config?: string;
  output?: string;
}

const gateway = (flags: Flags) =>
  requireGateway(flags, 'held tools are judged and approved by the running gateway');

const heldList = async (daemon: Daemon) =>
  ((await gatewayCall(daemon, 'GET', '/api/v1/tools/held')).items ?? []) as HeldTool[];

async function held(flags: Flags): Promise<void> {
  const daemon = await gateway(flags);
  if (!daemon) return;
  const items = await heldList(daemon);
  if (flags.output === 'json') {
    await printJson({ items });
    return;
  }
  if (items.length === 0) {
    process.stdout.write('no held tools\n');
    return;
  }
  process.stdout.write(
    renderTable(
      ['TOOL', 'CHANGE', 'FIELDS'],
      items.map((h) => [`${h.server}.${h.tool}`, h.change, h.fields.join(', ')]),
    ),
  );
  process.stdout.write(
    `${items.length} held; approve with \`codemux tools approve SERVER.TOOL\` (or SERVER for all of its held tools)\n`,
  );
}

const approvePath = (server: string, tool: string) =>
  `/api/v1/servers/${encodeURIComponent(server)}/tools/${encodeURIComponent(tool)}/approve`;

async function approve(target: string, flags: Flags): Promise<void> {
  // Server names have no dots (SERVER_NAME_PATTERN); tool names may.
  const dot = target.indexOf('.');
  const server = dot < 0 ? target : target.slice(0, dot);
  const tool = dot < 0 ? undefined : target.slice(dot + 1);
  if (!SERVER_NAME_PATTERN.test(server) || tool === '') {
    throw new CliError(`"${target}" is not SERVER.TOOL or SERVER (e.g. github.create_issue)`);
  }
  const daemon = await gateway(flags);
  if (!daemon) return;
  let tools: string[];
  if (tool !== undefined) {
    tools = [tool];
  } else {
    tools = (await heldList(daemon)).filter((h) => h.server === server).map((h) => h.tool);
    if (tools.length === 0) {
      throw new CliError(
        `server "${server}" has no held tools (\`codemux tools held\`)`,
        EXIT_FAILED,
      );
    }
  }
  const approved: HeldTool[] = [];
  for (const t of tools) {
    approved.push((await gatewayCall(daemon, 'POST', approvePath(server, t))).approved as HeldTool);
  }
  if (flags.output === 'json') {
    await printJson({ approved });
    return;
  }
  for (const h of approved) {
    process.stdout.write(
      `approved ${h.server}.${h.tool} (${h.change === 'new' ? 'new' : `changed: ${h.fields.join(', ')}`})\n`,
    );
  }
}

export function registerTools(program: Command): void {
  const tools = program
    .command('tools')
    .description('Tool-definition pinning: tools held until approved (see docs/pinning.md)');
  const heldCommand = tools
    .command('held')
    .description('List the tools held because their definition changed or is new');
  addConfigOption(heldCommand);
  addGatewayOptions(heldCommand);
  addOutputOption(heldCommand, ['table', 'json']).action(held);
  const approveCommand = tools
    .command('approve <target>')
    .description('Approve SERVER.TOOL (or every held tool of SERVER): pin its current definition');
  addConfigOption(approveCommand);
  addGatewayOptions(approveCommand);
  addOutputOption(approveCommand, ['text', 'json']).action(approve);
}
