/**
 * @module While `code exec` waits on the gateway, says on stderr which approval a held call of
 * its run waits for and how to decide it, so a held call never looks like a hang. It polls
 * `GET /api/v1/approvals?status=pending` for approvals created since the run was sent.
 */
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

/** The line `code exec` prints for a held call. */
export const heldLine = (a: Pending): string =>
  `codemux: waiting for approval ${a.id} of ${a.server}.${a.tool}: run \`codemux approvals approve ${a.id}\` (or \`codemux approvals deny ${a.id}\`) or decide on the dashboard's Approvals page\n`;

/**
 * Watches for approvals of the admin's runs created since now, printing each once on `out`;
 * the returned stop ends it. The CLI cannot yet tell its run's approvals from another admin
 * run's made meanwhile: both are shown.
 */
export function watchHeld(gateway: FoundGateway, out: NodeJS.WritableStream): () => void {
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
          out.write(heldLine(a));
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
