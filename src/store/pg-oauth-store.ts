/**
 * @module Upstream OAuth credentials and sign-in flows in PostgreSQL: the SQLite tables; a
 * flow's claim is one conditional UPDATE (row-locked, so across instances a state is used
 * once), the refresh lock an advisory lock, and each write announced with its server's name.
 */

import {
  CLAIM_SQL,
  type CredentialsRow,
  credentialsOf,
  FINISH_SQL,
  FLOW_COLUMNS,
  type FlowRow,
  flowOf,
  flowValues,
  missingRowError,
  putStatement,
} from './oauth-rows.ts';
import type { OAuthStore } from './oauth-store.ts';
import type { PgDatabase } from './pg-database.ts';
import { pgRefreshLock } from './pg-refresh-lock.ts';

const dollar = (i: number) => `$${i}`;
const INSERT_FLOW = `INSERT INTO oauth_flows (${FLOW_COLUMNS.join(', ')}) VALUES (${FLOW_COLUMNS.map((_, i) => dollar(i + 1)).join(', ')})`;

export function pgOAuthStore(db: PgDatabase): OAuthStore {
  // The row is written whether or not the other instances hear of it, as in the other stores:
  // a failed notice must not turn a recorded write into an error for its caller.
  const announce = (server: string) => db.notify('oauth', server).catch(() => {});
  return {
    async get(server) {
      const { rows } = await db.query<CredentialsRow>(
        'SELECT * FROM oauth_credentials WHERE server = $1',
        [server],
      );
      return rows[0] ? credentialsOf(rows[0]) : undefined;
    },
    async list() {
      const { rows } = await db.query<CredentialsRow>(
        'SELECT * FROM oauth_credentials ORDER BY server',
      );
      return rows.map(credentialsOf);
    },
    async put(server, fields) {
      const { sql, params, upsert } = putStatement(
        server,
        fields,
        new Date().toISOString(),
        dollar,
      );
      const { rowCount } = await db.query(sql, params);
      if (!upsert && !rowCount) throw missingRowError(server);
      await announce(server);
    },
    async delete(server) {
      const { existed, flows } = await db.transaction(async (client) => {
        const dropped = await client.query('DELETE FROM oauth_flows WHERE server = $1', [server]);
        const { rowCount } = await client.query('DELETE FROM oauth_credentials WHERE server = $1', [
          server,
        ]);
        return { existed: (rowCount ?? 0) > 0, flows: dropped.rowCount ?? 0 };
      });
      if (existed || flows > 0) await announce(server);
      return existed;
    },
    async createFlow(flow) {
      await db.query(INSERT_FLOW, flowValues(flow));
      await announce(flow.server);
    },
    async getFlow(id) {
      const { rows } = await db.query<FlowRow>('SELECT * FROM oauth_flows WHERE id = $1', [id]);
      return rows[0] ? flowOf(rows[0]) : undefined;
    },
    async claimFlow(stateSha256, now) {
      // A second instance's UPDATE waits for the first to commit, then finds the flow no longer pending.
      const { rows } = await db.query<FlowRow>(CLAIM_SQL(dollar), [stateSha256, now]);
      if (!rows[0]) return undefined;
      await announce(rows[0].server);
      return flowOf(rows[0]);
    },
    async finishFlow(id, status, error, finishedAt) {
      const { rows } = await db.query<{ server: string }>(FINISH_SQL(dollar), [
        status,
        error,
        finishedAt,
        id,
      ]);
      if (rows[0]) await announce(rows[0].server);
    },
    async trimFlows(before) {
      const result = await db.query('DELETE FROM oauth_flows WHERE created_at < $1', [before]);
      return result.rowCount ?? 0;
    },
    withRefreshLock: pgRefreshLock(db),
    onChange(listener) {
      // Notices from this instance never arrive here: the database drops its own by origin.
      return db.onChange('oauth', (server) => {
        if (server) listener(server);
      });
    },
  };
}
