/** @module Opens the store a gateway uses: tokens, activity, code tools, pins, approvals, yielded runs, run journals and upstream OAuth in one database. */

import type { ActivityStore } from './activity-store.ts';
import type { ApprovalStore } from './approval-store.ts';
import type { CodeToolStore } from './code-tool-store.ts';
import type { ExecutionRunStore } from './execution-run-store.ts';
import type { OAuthStore } from './oauth-store.ts';
import type { PgClusterSlots as ClusterSlots } from './pg-cluster-slots.ts';
import type { RunJournalStore } from './run-journal-store.ts';
import { sqliteActivityStore } from './sqlite-activity-store.ts';
import { sqliteApprovalStore } from './sqlite-approval-store.ts';
import { sqliteCodeToolStore } from './sqlite-code-tool-store.ts';
import { openSqliteDatabase } from './sqlite-database.ts';
import { sqliteExecutionRunStore } from './sqlite-execution-run-store.ts';
import { sqliteOAuthStore } from './sqlite-oauth-store.ts';
import { sqliteRunJournalStore } from './sqlite-run-journal-store.ts';
import { sqliteTokenStore } from './sqlite-token-store.ts';
import { sqliteToolPinStore } from './sqlite-tool-pin-store.ts';
import type { TokenStore } from './token-store.ts';
import type { ToolPinStore } from './tool-pin-store.ts';

export interface Store {
  tokens: TokenStore;
  activity: ActivityStore;
  codeTools: CodeToolStore;
  toolPins: ToolPinStore;
  approvals: ApprovalStore;
  /** Runs that yielded, for the other instances of a cluster (and processes on one file). */
  executionRuns: ExecutionRunStore;
  /** Journals of durable runs, to run them again after their instance stopped. */
  runJournals: RunJournalStore;
  /** Upstream OAuth credentials (sealed) and sign-in flows. */
  oauth: OAuthStore;
  close(): Promise<void>;
}

/**
 * The store a config names: PostgreSQL when it has `database_url` (with cluster slots), else
 * SQLite in `data_dir`. PostgreSQL loads only when used.
 */
export async function openConfiguredStore(
  config: {
    dataDir: string;
    databaseUrl?: string;
    databaseUrlSource?: string;
  },
  options: OpenOptions = {},
): Promise<Store & { clusterSlots?: ClusterSlots }> {
  if (!config.databaseUrl) return openStore(config.dataDir, options);
  const { openPgStore } = await import('./pg-store.ts');
  return openPgStore(config.databaseUrl, config.databaseUrlSource ?? 'database_url');
}

export interface OpenOptions {
  /**
   * SQLite: commit the activity history on a writer thread (a long-lived gateway: `serve`,
   * `stdio`), not on the calling thread (one-shot commands, which would pay its start).
   */
  activityWriter?: boolean;
}

/** The SQLite store in `dataDir` (created and migrated when needed). */
export function openStore(dataDir: string, options: OpenOptions = {}): Store {
  const db = openSqliteDatabase(dataDir);
  let closed = false;
  const codeTools = sqliteCodeToolStore(db);
  const activity = sqliteActivityStore(db, options.activityWriter ? db.name : undefined);
  return {
    tokens: sqliteTokenStore(db),
    activity,
    codeTools,
    toolPins: sqliteToolPinStore(db),
    approvals: sqliteApprovalStore(db),
    executionRuns: sqliteExecutionRunStore(db),
    runJournals: sqliteRunJournalStore(db),
    oauth: sqliteOAuthStore(db),
    async close() {
      if (closed) return;
      closed = true;
      await codeTools.close();
      await activity.close();
      db.close();
    },
  };
}
