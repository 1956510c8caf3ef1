/** @module The OAuth tables' rows and writes, shared by the SQLite and PostgreSQL OAuth stores. */
import type { OAuthCredentials, OAuthCredentialsWrite, OAuthFlow } from './oauth-store.ts';

export type CredentialsRow = Omit<OAuthCredentials, 'discovery'> & { discovery: string | null };
export type FlowRow = OAuthFlow;

/** `oauth_flows`' columns, in OAuthFlow's field order. */
export const FLOW_COLUMNS = [
  'id',
  'server',
  'state_sha256',
  'verifier_sealed',
  'status',
  'error',
  'created_at',
  'expires_at',
  'finished_at',
] as const;

/** The columns `put` may write, in a fixed order: only these names ever reach the SQL text. */
const WRITABLE_COLUMNS = [
  'server_url',
  'client_sealed',
  'tokens_sealed',
  'discovery',
  'expires_at',
  'scope',
  'reason',
] as const;

/** A credentials row as read back: `discovery` parsed (null when absent). */
export function credentialsOf(row: CredentialsRow): OAuthCredentials {
  return {
    server: row.server,
    server_url: row.server_url,
    client_sealed: row.client_sealed,
    tokens_sealed: row.tokens_sealed,
    discovery: row.discovery === null ? null : (JSON.parse(row.discovery) as unknown),
    expires_at: row.expires_at,
    scope: row.scope,
    reason: row.reason,
    updated_at: row.updated_at,
  };
}

export const flowOf = (row: FlowRow): OAuthFlow => ({
  id: row.id,
  server: row.server,
  state_sha256: row.state_sha256,
  verifier_sealed: row.verifier_sealed,
  status: row.status,
  error: row.error,
  created_at: row.created_at,
  expires_at: row.expires_at,
  finished_at: row.finished_at,
});

/** A flow's values in FLOW_COLUMNS order. */
export const flowValues = (flow: OAuthFlow): (string | null)[] =>
  FLOW_COLUMNS.map((c) => flow[c] ?? null);

/** What a `put` runs: an upsert when it carries `server_url`, else an update of an existing row. */
export interface PutStatement {
  sql: string;
  params: (string | null)[];
  /** True for the upsert; the update changes nothing when the row is missing. */
  upsert: boolean;
}

/**
 * The statement writing `fields` (those not undefined; others kept) and `updated_at`;
 * `placeholder(i)` is the dialect's i-th parameter (1-based).
 */
export function putStatement(
  server: string,
  fields: OAuthCredentialsWrite,
  updatedAt: string,
  placeholder: (i: number) => string,
): PutStatement {
  if (fields.server_url !== undefined && typeof fields.server_url !== 'string') {
    throw new Error(`the OAuth credentials of "${server}" need server_url as a string`);
  }
  const columns: string[] = [];
  const values: (string | null)[] = [];
  for (const column of WRITABLE_COLUMNS) {
    const value = fields[column];
    if (value === undefined) continue;
    columns.push(column);
    values.push(
      column === 'discovery' ? (JSON.stringify(value) ?? null) : (value as string | null),
    );
  }
  columns.push('updated_at');
  values.push(updatedAt);
  if (fields.server_url !== undefined) {
    const all = ['server', ...columns];
    const updates = columns.map((c) => `${c} = excluded.${c}`).join(', ');
    return {
      sql: `INSERT INTO oauth_credentials (${all.join(', ')}) VALUES (${all.map((_, i) => placeholder(i + 1)).join(', ')}) ON CONFLICT (server) DO UPDATE SET ${updates}`,
      params: [server, ...values],
      upsert: true,
    };
  }
  const sets = columns.map((c, i) => `${c} = ${placeholder(i + 1)}`).join(', ');
  return {
    sql: `UPDATE oauth_credentials SET ${sets} WHERE server = ${placeholder(columns.length + 1)}`,
    params: [...values, server],
    upsert: false,
  };
}

/** The misuse a `put` without `server_url` on a missing row is. */
export function missingRowError(server: string): Error {
  return new Error(
    `no OAuth credentials for "${server}" yet: the first put must carry server_url (the upstream URL they are for)`,
  );
}

export const CLAIM_SQL = (p: (i: number) => string) =>
  `UPDATE oauth_flows SET status = 'exchanging' WHERE state_sha256 = ${p(1)} AND status = 'pending' AND expires_at > ${p(2)} RETURNING *`;

// A finished flow stays as it ended: the first ending wins (a late expiry never hides a completion).
export const FINISH_SQL = (p: (i: number) => string) =>
  `UPDATE oauth_flows SET status = ${p(1)}, error = ${p(2)}, finished_at = ${p(3)} WHERE id = ${p(4)} AND status IN ('pending', 'exchanging') RETURNING server`;
