/** @module Tool-definition pins in SQLite: one row per pinned tool, one per server seen. */
import type { SqliteDatabase } from './sqlite-database.ts';
import { type PinRow, pinOf, pinValues } from './tool-pin-rows.ts';
import type { ToolPin, ToolPinStore } from './tool-pin-store.ts';

/** Pins in an open database; one gateway per SQLite file, so there is no other instance to hear. */
export function sqliteToolPinStore(db: SqliteDatabase): ToolPinStore {
  const upsert = db.prepare(
    'INSERT INTO tool_pins (server, tool, sha256, definition, pinned_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (server, tool) DO UPDATE SET sha256 = excluded.sha256, definition = excluded.definition, pinned_at = excluded.pinned_at',
  );
  const see = db.prepare(
    'INSERT INTO tool_pin_servers (server, seen_at) VALUES (?, ?) ON CONFLICT (server) DO NOTHING',
  );
  const write = db.transaction((pins: readonly ToolPin[]) => {
    for (const p of pins) {
      see.run(p.server, p.pinned_at);
      upsert.run(...pinValues(p));
    }
  });
  const first = db.transaction((server: string, pins: readonly ToolPin[]) => {
    if (see.run(server, new Date().toISOString()).changes === 0) return false;
    for (const p of pins) upsert.run(...pinValues(p));
    return true;
  });
  return {
    async load() {
      const pins = db.prepare('SELECT * FROM tool_pins ORDER BY server, tool').all() as PinRow[];
      const seen = db.prepare('SELECT server FROM tool_pin_servers').all() as { server: string }[];
      return { pins: pins.map(pinOf), seen: seen.map((r) => r.server) };
    },
    async firstSight(server, pins) {
      return first(server, pins);
    },
    async put(pins) {
      write(pins);
    },
    onChange: () => () => {},
  };
}
