/**
 * @module `codemux approvals list|args|approve|deny` at work: calls held by `tool_policy` "ask",
 * through the running gateway (the call waits there; a decision anywhere else would not reach it).
 */
import type { ApprovalRecord } from '../store/index.ts';
import { gatewayCall, requireGateway } from './gateway-command.ts';
import type { GatewayFlags } from './options.ts';
import { printJson } from './output.ts';
import { renderTable } from './table.ts';

interface Flags extends GatewayFlags {
  config?: string;
  output?: string;
  status?: string;
}

const reachGateway = (flags: Flags) =>
  requireGateway(flags, 'approvals are held and decided by the running gateway');

/** The last column: when a pending one expires, else who decided (or what expired it). */
const outcome = (a: ApprovalRecord) =>
  a.status === 'pending' ? `expires ${a.expires_at}` : (a.decided_by ?? '');

export async function list(flags: Flags): Promise<void> {
  const gateway = await reachGateway(flags);
  if (!gateway) return;
  const query = flags.status ? `?status=${encodeURIComponent(flags.status)}` : '';
  const body = await gatewayCall(gateway, 'GET', `/api/v1/approvals${query}`);
  const items = (body.items ?? []) as ApprovalRecord[];
  if (flags.output === 'json') {
    await printJson({ items });
    return;
  }
  if (items.length === 0) {
    process.stdout.write(flags.status ? `no ${flags.status} approvals\n` : 'no approvals\n');
    return;
  }
  process.stdout.write(
    renderTable(
      ['ID', 'STATUS', 'SERVER', 'TOOL', 'REASON', 'CALLER', 'CREATED', 'EXPIRES / DECIDED BY'],
      items.map((a) => [
        a.id,
        a.status,
        a.server,
        a.tool,
        a.reason,
        a.caller,
        a.created_at,
        outcome(a),
      ]),
    ),
  );
  for (const a of items.filter((i) => i.args_truncated)) {
    process.stdout.write(
      `${a.id}: arguments over 64 KiB, not shown in full: ${a.args_cut_keys.join(', ')} (\`codemux approvals args ${a.id}\` prints them whole)\n`,
    );
  }
  const pending = items.filter((a) => a.status === 'pending').length;
  if (pending > 0) {
    process.stdout.write(
      `${pending} pending; decide with \`codemux approvals approve ID\` or \`codemux approvals deny ID\`\n`,
    );
  }
}

/** Prints an approval's whole arguments (JSON), also those its listing leaves out. */
export async function args(id: string, flags: Flags): Promise<void> {
  const gateway = await reachGateway(flags);
  if (!gateway) return;
  const body = await gatewayCall(
    gateway,
    'GET',
    `/api/v1/approvals/${encodeURIComponent(id)}/args`,
  );
  await printJson(body);
}

export const decide = (decision: 'approve' | 'deny') => async (id: string, flags: Flags) => {
  const gateway = await reachGateway(flags);
  if (!gateway) return;
  const path = `/api/v1/approvals/${encodeURIComponent(id)}/${decision}`;
  const { request_id: _requestId, ...body } = await gatewayCall(gateway, 'POST', path);
  if (flags.output === 'json') {
    await printJson(body);
    return;
  }
  const a = body.approval as ApprovalRecord;
  process.stdout.write(`${a.status} ${a.id}: ${a.server}.${a.tool} (decided by ${a.decided_by})\n`);
};
