/** @module `codemux tools held|approve` at work: tools held by tool-definition pinning, through the running gateway. */
import { createInterface } from 'node:readline';
import { SERVER_NAME_PATTERN } from '../config/defaults.ts';
import type { HeldTool } from '../execution/index.ts';
import { CliError } from './cli-error.ts';
import { EXIT_FAILED } from './exit-codes.ts';
import type { FoundGateway } from './gateway-client.ts';
import { gatewayCall, requireGateway } from './gateway-command.ts';
import type { GatewayFlags } from './options.ts';
import { printJson } from './output.ts';
import { pinDifference } from './pin-difference.ts';
import { renderTable } from './table.ts';

interface Flags extends GatewayFlags {
  config?: string;
  output?: string;
}

const reachGateway = (flags: Flags) =>
  requireGateway(flags, 'held tools are judged and approved by the running gateway');

const heldList = async (gateway: FoundGateway) =>
  ((await gatewayCall(gateway, 'GET', '/api/v1/tools/held')).items ?? []) as HeldTool[];

export async function held(flags: Flags): Promise<void> {
  const gateway = await reachGateway(flags);
  if (!gateway) return;
  const items = await heldList(gateway);
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

interface ApproveFlags extends Flags {
  sha256?: string;
  yes?: boolean;
}

/** One y/N answer from the terminal; anything but y or yes (or the end of input) is no. */
async function confirm(question: string): Promise<boolean> {
  const reader = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const line = await new Promise<string | undefined>((resolve) => {
      reader.once('close', () => resolve(undefined));
      reader.question(question, resolve);
    });
    return /^\s*(y|yes)\s*$/i.test(line ?? '');
  } finally {
    reader.close();
  }
}

/**
 * The held tools `target` names, each approved by the digest it shows; an explicit `--sha256`
 * approves that digest and nothing else.
 */
async function approvalsFor(
  gateway: FoundGateway,
  target: string,
  server: string,
  tool: string | undefined,
  flags: ApproveFlags,
): Promise<{ server: string; tool: string; sha256: string }[]> {
  if (flags.sha256 !== undefined) {
    if (tool === undefined) {
      throw new CliError('--sha256 names one definition: give SERVER.TOOL, not a whole server');
    }
    if (!/^[0-9a-fA-F]{64}$/.test(flags.sha256)) {
      throw new CliError(
        '--sha256 must be 64 hex characters (the sha256 `codemux tools held -o json` shows)',
      );
    }
    return [{ server, tool, sha256: flags.sha256.toLowerCase() }];
  }
  const shown = (await heldList(gateway)).filter(
    (h) => h.server === server && (tool === undefined || h.tool === tool),
  );
  if (shown.length === 0) {
    throw new CliError(
      tool === undefined
        ? `server "${server}" has no held tools (\`codemux tools held\`)`
        : `${target} is not held (its definition matches its pin, or tool_pinning is "off"); \`codemux tools held\` lists the held tools`,
      EXIT_FAILED,
    );
  }
  if (!flags.yes) {
    // The person must see what they approve: the difference, then a question on a terminal.
    process.stderr.write(shown.map(pinDifference).join(''));
    if (!(process.stdin.isTTY && process.stderr.isTTY)) {
      throw new CliError(
        `not approved: stdin is not a terminal, so nobody could be asked about the definition${shown.length === 1 ? '' : 's'} above; after reviewing them (\`codemux tools held -o json\`), run \`codemux tools approve SERVER.TOOL --sha256 HEX\` to approve exactly the definition with that sha256, or add --yes to approve what the server lists when the command runs`,
      );
    }
    const what = shown.length === 1 ? 'this definition' : `these ${shown.length} definitions`;
    if (!(await confirm(`Approve ${what}? [y/N] `))) {
      throw new CliError('not approved (nothing was changed)', EXIT_FAILED);
    }
  }
  return shown.map((h) => ({ server: h.server, tool: h.tool, sha256: h.sha256 }));
}

export async function approve(target: string, flags: ApproveFlags): Promise<void> {
  // Server names have no dots (SERVER_NAME_PATTERN); tool names may.
  const dot = target.indexOf('.');
  const server = dot < 0 ? target : target.slice(0, dot);
  const tool = dot < 0 ? undefined : target.slice(dot + 1);
  if (!SERVER_NAME_PATTERN.test(server) || tool === '') {
    throw new CliError(`"${target}" is not SERVER.TOOL or SERVER (e.g. github.create_issue)`);
  }
  const gateway = await reachGateway(flags);
  if (!gateway) return;
  const approved: HeldTool[] = [];
  const refused: string[] = [];
  // Tool by tool: one that changed since it was shown is refused, the others are still approved.
  for (const a of await approvalsFor(gateway, target, server, tool, flags)) {
    try {
      const body = await gatewayCall(gateway, 'POST', approvePath(a.server, a.tool), undefined, {
        sha256: a.sha256,
      });
      approved.push(body.approved as HeldTool);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      refused.push(error.message);
    }
  }
  if (flags.output === 'json') {
    await printJson({ approved });
  } else {
    for (const h of approved) {
      process.stdout.write(
        `approved ${h.server}.${h.tool} (${h.change === 'new' ? 'new' : `changed: ${h.fields.join(', ')}`}; sha256 ${h.sha256})\n`,
      );
    }
  }
  if (refused.length > 0) throw new CliError(refused.join('; '), EXIT_FAILED);
}
