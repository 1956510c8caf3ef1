/**
 * @module One test file's databases on the run's shared PostgreSQL (started once by
 * test/setup/postgres.ts). Files that stop the server (`restart()`) start a private one with
 * test/postgres.ts instead.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { partValue } from './setup/provided.ts';

export interface SharedPostgres {
  /** A URL for a fresh database of this file's own (created on the first call for `name`). */
  database(name: string): Promise<string>;
  port: number;
  /** Drops this file's databases, closing any connection left to them (afterAll, after the gateways stop). */
  drop(): Promise<void>;
}

/** Runs `sql` as the admin on the server at `port`. */
async function adminQuery(port: number, sql: string): Promise<void> {
  const admin = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * The run's shared server: each database name gets a suffix of this call's own, so files
 * running at once never meet. Throws the one-line install hint when PostgreSQL is missing.
 */
export function sharedPostgres(): SharedPostgres {
  const port = partValue(inject('postgres'), 'The shared PostgreSQL (tier pg)');
  const suffix = randomBytes(4).toString('hex');
  const created = new Map<string, string>();
  return {
    port,
    async database(name) {
      let real = created.get(name);
      if (!real) {
        real = `${name}_${suffix}`;
        await adminQuery(port, `CREATE DATABASE "${real}"`);
        created.set(name, real);
      }
      return `postgres://postgres@127.0.0.1:${port}/${real}`;
    },
    async drop() {
      for (const real of created.values())
        await adminQuery(port, `DROP DATABASE IF EXISTS "${real}" WITH (FORCE)`);
      created.clear();
    },
  };
}
