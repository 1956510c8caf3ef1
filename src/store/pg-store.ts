/** @module Opens the PostgreSQL store of `database_url`: tokens, activity, code tools, pins, approvals, yielded runs, run journals, upstream OAuth and cluster slots. */

import type { Store } from './open-store.ts';
import { pgActivityStore } from './pg-activity-store.ts';
import { pgApprovalStore } from './pg-approval-store.ts';
import { type PgClusterSlots, pgClusterSlots } from './pg-cluster-slots.ts';
import { pgCodeToolStore } from './pg-code-tool-store.ts';
import { openPgDatabase } from './pg-database.ts';
import { pgExecutionRunStore } from './pg-execution-run-store.ts';
import { pgOAuthStore } from './pg-oauth-store.ts';
import { pgRunJournalStore } from './pg-run-journal-store.ts';
import { pgTokenStore } from './pg-token-store.ts';
import { pgToolPinStore } from './pg-tool-pin-store.ts';

export interface PgStore extends Store {
  clusterSlots: PgClusterSlots;
}

/** Connects and migrates; a database that cannot be reached is DATABASE_UNAVAILABLE naming `source`. */
export async function openPgStore(url: string, source = 'database_url'): Promise<PgStore> {
  const db = await openPgDatabase(url, source);
  const tokens = await pgTokenStore(db);
  const codeTools = pgCodeToolStore(db);
  const clusterSlots = pgClusterSlots(url);
  let closed = false;
  return {
    tokens,
    activity: pgActivityStore(db),
    codeTools,
    toolPins: pgToolPinStore(db),
    approvals: pgApprovalStore(db),
    executionRuns: pgExecutionRunStore(db),
    runJournals: pgRunJournalStore(db),
    oauth: pgOAuthStore(db),
    clusterSlots,
    async close() {
      if (closed) return;
      closed = true;
      await tokens.close();
      await codeTools.close();
      await clusterSlots.close();
      await db.close();
    },
  };
}
