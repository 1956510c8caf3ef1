/**
 * @module Tool-definition pins in PostgreSQL: the SQLite tables; each write is one transaction
 * and then a change notice, so every other instance reloads its pins at once.
 */
import type { PgDatabase } from './pg-database.ts';
import { type PinRow, pinOf, pinValues } from './tool-pin-rows.ts';
import type { ToolPin, ToolPinStore } from './tool-pin-store.ts';

const UPSERT =
  'INSERT INTO tool_pins (server, tool, sha256, definition, pinned_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (server, tool) DO UPDATE SET sha256 = excluded.sha256, definition = excluded.definition, pinned_at = excluded.pinned_at';
const SEE =
  'INSERT INTO tool_pin_servers (server, seen_at) VALUES ($1, $2) ON CONFLICT (server) DO NOTHING';

export function pgToolPinStore(db: PgDatabase): ToolPinStore {
  const announce = () => db.notify('tool_pins').catch(() => {});
  return {
    async load() {
      const pins = await db.query<PinRow>('SELECT * FROM tool_pins ORDER BY server, tool');
      const seen = await db.query<{ server: string }>('SELECT server FROM tool_pin_servers');
      return { pins: pins.rows.map(pinOf), seen: seen.rows.map((r) => r.server) };
    },
    async firstSight(server, pins) {
      // Two instances connecting at once: the second waits on the first's row, then does nothing.
      const first = await db.transaction(async (q) => {
        const seen = await q.query(SEE, [server, new Date().toISOString()]);
        if (seen.rowCount === 0) return false;
        for (const p of pins) await q.query(UPSERT, pinValues(p));
        return true;
      });
      if (first) await announce();
      return first;
    },
    async put(pins: readonly ToolPin[]) {
      await db.transaction(async (q) => {
        for (const p of pins) {
          await q.query(SEE, [p.server, p.pinned_at]);
          await q.query(UPSERT, pinValues(p));
        }
      });
      await announce();
    },
    onChange: (listener) => db.onChange('tool_pins', () => listener()),
  };
}
