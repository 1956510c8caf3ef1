/**
 * @module Upstream OAuth credentials and sign-in flows in SQLite. A flow's claim is one
 * conditional UPDATE; the refresh lock is one at a time in-process, then a lease row that holds
 * across the processes sharing the file, whose writes arrive as change notices (polled).
 */
import { serialByKey } from './local-locks.ts';
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
import type { SqliteDatabase } from './sqlite-database.ts';
import { sqliteOAuthChanges, sqliteRefreshLease } from './sqlite-oauth-watch.ts';

const question = () => '?';

/** OAuth credentials and flows in an open database (and other processes' writes to it). */
export function sqliteOAuthStore(db: SqliteDatabase): OAuthStore {
  const byServer = db.prepare('SELECT * FROM oauth_credentials WHERE server = ?');
  const all = db.prepare('SELECT * FROM oauth_credentials ORDER BY server');
  const dropFlows = db.prepare('DELETE FROM oauth_flows WHERE server = ?');
  const dropCredentials = db.prepare('DELETE FROM oauth_credentials WHERE server = ?');
  const insertFlow = db.prepare(
    `INSERT INTO oauth_flows (${FLOW_COLUMNS.join(', ')}) VALUES (${FLOW_COLUMNS.map(question).join(', ')})`,
  );
  const flowById = db.prepare('SELECT * FROM oauth_flows WHERE id = ?');
  // One statement: the status test lets a state be claimed once, however many callbacks race.
  const claim = db.prepare(CLAIM_SQL(question));
  const finish = db.prepare(FINISH_SQL(question));
  const trim = db.prepare('DELETE FROM oauth_flows WHERE created_at < ?');
  const forget = db.transaction((server: string) => {
    dropFlows.run(server);
    return dropCredentials.run(server).changes > 0;
  });
  const serial = serialByKey();
  const lease = sqliteRefreshLease(db);
  const changes = sqliteOAuthChanges(db);
  return {
    async get(server) {
      const row = byServer.get(server) as CredentialsRow | undefined;
      return row ? credentialsOf(row) : undefined;
    },
    async list() {
      return (all.all() as CredentialsRow[]).map(credentialsOf);
    },
    async put(server, fields) {
      const { sql, params, upsert } = putStatement(
        server,
        fields,
        new Date().toISOString(),
        question,
      );
      const written = db.prepare(sql).run(...params).changes;
      if (!upsert && written === 0) throw missingRowError(server);
      changes.noteOwnWrite();
    },
    async delete(server) {
      const had = forget(server);
      changes.noteOwnWrite();
      return had;
    },
    async createFlow(flow) {
      insertFlow.run(...flowValues(flow));
    },
    async getFlow(id) {
      const row = flowById.get(id) as FlowRow | undefined;
      return row ? flowOf(row) : undefined;
    },
    async claimFlow(stateSha256, now) {
      const row = claim.get(stateSha256, now) as FlowRow | undefined;
      return row ? flowOf(row) : undefined;
    },
    async finishFlow(id, status, error, finishedAt) {
      finish.run(status, error, finishedAt, id);
    },
    async trimFlows(before) {
      return trim.run(before).changes;
    },
    withRefreshLock: (server, fn) => serial(server, () => lease(server, fn)),
    onChange: (listener) => changes.onChange(listener),
  };
}
