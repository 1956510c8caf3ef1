/**
 * @module The database schema as forward-only, numbered migrations. Portable SQL (SQLite and
 * PostgreSQL alike): TEXT, INTEGER, BIGINT; timestamps as ISO 8601 UTC text, which sorts.
 */

export interface Migration {
  version: number;
  statements: readonly string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: [
      `CREATE TABLE IF NOT EXISTS agent_tokens (
         name TEXT PRIMARY KEY,
         hash TEXT NOT NULL UNIQUE,
         servers TEXT NOT NULL,
         created_at TEXT NOT NULL,
         last_used_at TEXT
       )`,
    ],
  },
  {
    version: 2,
    statements: [
      `CREATE TABLE activity (
         id TEXT PRIMARY KEY,
         parent_id TEXT,
         seq INTEGER NOT NULL,
         kind TEXT NOT NULL,
         surface TEXT NOT NULL,
         caller TEXT NOT NULL,
         server TEXT,
         tool TEXT,
         script TEXT,
         language TEXT,
         code TEXT,
         input TEXT,
         args TEXT,
         status TEXT NOT NULL,
         error TEXT,
         started_at TEXT NOT NULL,
         duration_ms DOUBLE PRECISION NOT NULL,
         logs TEXT,
         response TEXT,
         instance_id TEXT NOT NULL
       )`,
      'CREATE INDEX activity_parent ON activity (parent_id, seq)',
      'CREATE INDEX activity_started ON activity (started_at)',
      'CREATE INDEX activity_status ON activity (status)',
      'CREATE INDEX activity_server ON activity (server)',
    ],
  },
];
