/**
 * @module While `code exec` waits on the gateway, says on stderr which approval a held call of
 * its run waits for and how to decide it, so a held call never looks like a hang. It polls
 * `GET /api/v1/approvals?status=pending` for approvals created since the run was sent.
 */
import type { ApprovalChannel } from '../config/index.ts';
import { type FoundGateway, gatewayRequest } from './gateway-client.ts';

/** How often the pending approvals are read while the run is in flight. */
export const HELD_POLL_MS = 1_000;

interface Pending {
  id: string;
  server: string;
  tool: string;
  caller: string;
  created_at: string;
}

/**
 * How a person may decide approval `id`, naming only the channels `channels`
 * (tool_policy.approval_channels) leaves open: advice that could only fail with 403
 * CHANNEL_DISABLED is never given. REST is named only when neither the CLI nor the dashboard may.
 */
export function howToDecide(id: string, channels: readonly ApprovalChannel[]): string {
  const ways: string[] = [];
  if (channels.includes('cli'))
    ways.push(`run \`codemux approvals approve ${id}\` (or \`codemux approvals deny ${id}\`)`);
  if (channels.includes('dashboard')) ways.push("decide on the dashboard's Approvals page");
  if (ways.length === 0 && channels.includes('rest'))
    ways.push(`POST /api/v1/approvals/${id}/approve (or /deny) with the admin key`);
  if (ways.length === 0)
    return 'nobody can decide it from here: tool_policy.approval_channels leaves out "cli", "dashboard" and "rest"; it expires after tool_policy.approval_timeout_ms';
  return ways.join(' or ');
}

/** The line `code exec` prints for a held call, under tool_policy.approval_channels `channels`. */
export const heldLine = (a: Pending, channels: readonly ApprovalChannel[]): string =>
  `codemux: waiting for approval ${a.id} of ${a.server}.${a.tool}: ${howToDecide(a.id, channels)}\n`;

/**
 * Watches for approvals of the admin's runs created since now, printing each once on `out`
 * with how `channels` lets it be decided; the returned stop ends it. The CLI cannot yet tell its run's approvals from another admin
 * run's made meanwhile: both are shown.
 */
export function watchHeld(
  gateway: FoundGateway,
  out: NodeJS.WritableStream,
  channels: readonly ApprovalChannel[],
): () => void {
  const since = new Date().toISOString();
  const told = new Set<string>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    try {
      const { status, body } = await gatewayRequest(
        gateway,
        'GET',
        '/api/v1/approvals?status=pending',
        { timeoutMs: 10_000 },
      );
      if (status === 200 && !stopped) {
        for (const a of (body.items as Pending[] | undefined) ?? []) {
          if (a.caller !== 'admin' || a.created_at < since || told.has(a.id)) continue;
          told.add(a.id);
          out.write(heldLine(a, channels));
        }
      }
    } catch {
      // The notice is a courtesy: the run's own answer still comes.
    }
    if (!stopped) timer = setTimeout(() => void tick(), HELD_POLL_MS);
  };
  timer = setTimeout(() => void tick(), HELD_POLL_MS);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
