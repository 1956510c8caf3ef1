import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { approvalRecord, approvalStoreContract } from './approval-store.contract.ts';
import { openStore } from './open-store.ts';
import { DATABASE_FILE } from './sqlite-database.ts';

approvalStoreContract('SQLite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-approvals-'));
  const store = openStore(dir);
  return {
    approvals: store.approvals,
    async dispose() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('SQLite approvals: the program is stored once (issue 33, item 6)', () => {
  it('stores one execution’s program once for its several held calls, and shows it on each', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-programs-'));
    const store = openStore(dir);
    const code = `const big = '${'p'.repeat(20_000)}'; call_tools([...])`;
    try {
      for (const n of [1, 2, 3]) {
        await store.approvals.create(
          approvalRecord({ id: `019b0000000000000000000${n}`, code, tool: `t${n}` }),
        );
      }
      for (const a of await store.approvals.list({ limit: 10 })) expect(a.code).toBe(code);
      const db = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
      try {
        // Every byte of program text in the file, whichever table holds it.
        const tables = (
          db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
            name: string;
          }[]
        ).map((t) => t.name);
        let bytes = 0;
        for (const table of ['approvals', 'approval_programs'].filter((t) => tables.includes(t))) {
          const row = db.prepare(`SELECT COALESCE(SUM(LENGTH(code)), 0) AS n FROM ${table}`).get();
          bytes += (row as { n: number }).n;
        }
        expect(bytes).toBe(code.length);
      } finally {
        db.close();
      }
      // Decided and trimmed, the program goes with the last approval that named it.
      for (const n of [1, 2, 3]) {
        await store.approvals.decide(`019b0000000000000000000${n}`, 'denied', 'admin', 'x');
      }
      expect(await store.approvals.trim('9999')).toBe(3);
      const after = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
      try {
        expect(after.prepare('SELECT COUNT(*) AS n FROM approval_programs').get()).toEqual({
          n: 0,
        });
      } finally {
        after.close();
      }
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
