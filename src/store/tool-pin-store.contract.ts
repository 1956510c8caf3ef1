/** @module The tool-pin store contract, run against SQLite and PostgreSQL alike. */
import { describe, expect, it } from 'vitest';
import type { ToolPin, ToolPinStore } from './tool-pin-store.ts';

export interface PinStoreHandle {
  pins: ToolPinStore;
  /** The same database opened again, as after a restart (or by another instance). */
  reopen(): Promise<{ pins: ToolPinStore; close(): Promise<void> }>;
  dispose(): Promise<void>;
}

export const pin = (server: string, tool: string, sha256: string, description = 'd'): ToolPin => ({
  server,
  tool,
  sha256,
  definition: {
    name: tool,
    description,
    inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
    annotations: { destructiveHint: true },
  },
  pinned_at: '2026-12-03T10:00:00.000Z',
});

export function toolPinStoreContract(label: string, open: () => Promise<PinStoreHandle>): void {
  describe(`tool pin store (${label})`, () => {
    it('pins a server on first sight only, and keeps the definition whole', async () => {
      const h = await open();
      try {
        expect(await h.pins.load()).toEqual({ pins: [], seen: [] });
        expect(
          await h.pins.firstSight('fs', [pin('fs', 'read', 'a1'), pin('fs', 'write', 'b2')]),
        ).toBe(true);
        // A second sight writes nothing, even with other definitions.
        expect(await h.pins.firstSight('fs', [pin('fs', 'read', 'zz')])).toBe(false);
        const { pins, seen } = await h.pins.load();
        expect(seen).toEqual(['fs']);
        expect(pins).toEqual([pin('fs', 'read', 'a1'), pin('fs', 'write', 'b2')]);
      } finally {
        await h.dispose();
      }
    });

    it('marks a server seen on first sight with no tools (a tool it adds later is new)', async () => {
      const h = await open();
      try {
        expect(await h.pins.firstSight('empty', [])).toBe(true);
        expect(await h.pins.firstSight('empty', [pin('empty', 'late', 'c3')])).toBe(false);
        expect(await h.pins.load()).toEqual({ pins: [], seen: ['empty'] });
      } finally {
        await h.dispose();
      }
    });

    it('replaces a pin on put (an approval), marking its server seen', async () => {
      const h = await open();
      try {
        await h.pins.put([pin('gh', 'push', 'old', 'before')]);
        await h.pins.put([pin('gh', 'push', 'new', 'after'), pin('gh', 'pull', 'p1')]);
        const { pins, seen } = await h.pins.load();
        expect(seen).toEqual(['gh']);
        expect(pins).toEqual([pin('gh', 'pull', 'p1'), pin('gh', 'push', 'new', 'after')]);
        expect(await h.pins.firstSight('gh', [])).toBe(false);
      } finally {
        await h.dispose();
      }
    });

    it('keeps pins across a restart', async () => {
      const h = await open();
      try {
        await h.pins.firstSight('fs', [pin('fs', 'read', 'a1')]);
        await h.pins.put([pin('fs', 'write', 'w1')]);
        const again = await h.reopen();
        try {
          expect(await again.pins.load()).toEqual({
            pins: [pin('fs', 'read', 'a1'), pin('fs', 'write', 'w1')],
            seen: ['fs'],
          });
          expect(await again.pins.firstSight('fs', [])).toBe(false);
        } finally {
          await again.close();
        }
      } finally {
        await h.dispose();
      }
    });
  });
}
