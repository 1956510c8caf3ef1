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
  {
    version: 3,
    statements: [
      `CREATE TABLE code_tools (
         name TEXT PRIMARY KEY,
         description TEXT NOT NULL,
         code TEXT NOT NULL,
         timeout_ms INTEGER NOT NULL,
         memory_limit_mb INTEGER NOT NULL,
         enabled INTEGER NOT NULL,
         allowed_servers TEXT NOT NULL,
         version INTEGER NOT NULL,
         created_at TEXT NOT NULL,
         updated_at TEXT NOT NULL
       )`,
      `CREATE TABLE code_tool_params (
         tool TEXT NOT NULL,
         name TEXT NOT NULL,
         position INTEGER NOT NULL,
         description TEXT NOT NULL,
         type TEXT NOT NULL,
         required INTEGER NOT NULL,
         default_value TEXT,
         PRIMARY KEY (tool, name)
       )`,
      `CREATE TABLE code_tool_versions (
         tool TEXT NOT NULL,
         version INTEGER NOT NULL,
         description TEXT NOT NULL,
         code TEXT NOT NULL,
         timeout_ms INTEGER NOT NULL,
         memory_limit_mb INTEGER NOT NULL,
         enabled INTEGER NOT NULL,
         allowed_servers TEXT NOT NULL,
         created_at TEXT NOT NULL,
         PRIMARY KEY (tool, version)
       )`,
      `ALTER TABLE agent_tokens ADD COLUMN code_tools TEXT NOT NULL DEFAULT '[]'`,
    ],
  },
  {
    version: 4,
    statements: [
      `CREATE TABLE tool_pin_servers (
         server TEXT PRIMARY KEY,
         seen_at TEXT NOT NULL
       )`,
      `CREATE TABLE tool_pins (
         server TEXT NOT NULL,
         tool TEXT NOT NULL,
         sha256 TEXT NOT NULL,
         definition TEXT NOT NULL,
         pinned_at TEXT NOT NULL,
         PRIMARY KEY (server, tool)
       )`,
    ],
  },
  {
    version: 5,
    statements: [
      // One column per ApprovalRecord field; `args` is JSON text (null only when absent).
      `CREATE TABLE approvals (
         id TEXT PRIMARY KEY,
         status TEXT NOT NULL,
         server TEXT NOT NULL,
         tool TEXT NOT NULL,
         args TEXT,
         args_sha256 TEXT NOT NULL,
         reason TEXT NOT NULL,
         caller TEXT NOT NULL,
         activity_id TEXT,
         code TEXT,
         created_at TEXT NOT NULL,
         expires_at TEXT NOT NULL,
         decided_by TEXT,
         decided_at TEXT,
         instance_id TEXT NOT NULL
       )`,
      // Listing by status newest first (ids sort by time); the primary key serves the unfiltered list.
      'CREATE INDEX approvals_status ON approvals (status, id)',
      // Trimming by age.
      'CREATE INDEX approvals_created ON approvals (created_at)',
      'ALTER TABLE activity ADD COLUMN approval_id TEXT',
    ],
  },
  {
    version: 6,
    statements: [
      // Upstream OAuth: one row per server. The secrets are sealed text (util/secret-box.ts);
      // `discovery` is public metadata as JSON text.
      `CREATE TABLE oauth_credentials (
         server TEXT PRIMARY KEY,
         server_url TEXT NOT NULL,
         client_sealed TEXT,
         tokens_sealed TEXT,
         discovery TEXT,
         expires_at TEXT,
         scope TEXT,
         reason TEXT,
         updated_at TEXT NOT NULL
       )`,
      // Sign-in flows until their callback; the state is kept only as its hash, used once.
      `CREATE TABLE oauth_flows (
         id TEXT PRIMARY KEY,
         server TEXT NOT NULL,
         state_sha256 TEXT NOT NULL UNIQUE,
         verifier_sealed TEXT NOT NULL,
         status TEXT NOT NULL,
         error TEXT,
         created_at TEXT NOT NULL,
         expires_at TEXT NOT NULL,
         finished_at TEXT
       )`,
      // Forgetting a server's flows; trimming by age.
      'CREATE INDEX oauth_flows_server ON oauth_flows (server)',
      'CREATE INDEX oauth_flows_created ON oauth_flows (created_at)',
    ],
  },
  {
    version: 7,
    statements: [
      // SQLite's refresh lock across processes sharing one file (serve, stdio, code exec): a
      // lease, so a process that died holding it blocks the others only until \`until\`.
      // PostgreSQL uses an advisory lock instead and leaves this table empty.
      `CREATE TABLE oauth_refresh_leases (
         server TEXT PRIMARY KEY,
         owner TEXT NOT NULL,
         until TEXT NOT NULL
       )`,
    ],
  },
  {
    version: 8,
    statements: [
      // Programs of 2026-07-28 clients held on an approval (input_required): where the run
      // stands, so the retried call can be answered by any instance. `result` is the
      // tools/call result as JSON text once the run is done.
      `CREATE TABLE held_runs (
         id TEXT PRIMARY KEY,
         caller TEXT NOT NULL,
         instance_id TEXT NOT NULL,
         state TEXT NOT NULL,
         approval_id TEXT,
         result TEXT,
         updated_at TEXT NOT NULL,
         expires_at TEXT NOT NULL
       )`,
      'CREATE INDEX held_runs_expires ON held_runs (expires_at)',
    ],
  },
  {
    version: 9,
    statements: [
      // A dry run (the playground's switch) and its stubbed calls are marked in the history.
      'ALTER TABLE activity ADD COLUMN dry_run INTEGER NOT NULL DEFAULT 0',
    ],
  },
  {
    version: 10,
    statements: [
      // An approval's arguments are never cut silently (issue 33, item 4): the keys left out of
      // `args` (JSON array, NULL when whole) and the whole JSON they were cut from.
      'ALTER TABLE approvals ADD COLUMN args_cut_keys TEXT',
      'ALTER TABLE approvals ADD COLUMN args_whole TEXT',
    ],
  },
  {
    version: 11,
    statements: [
      // The program is stored once, not once per held call (issue 33, item 6): approvals name
      // it by the SHA-256 of its text. Rows written before keep their own `code`.
      'CREATE TABLE approval_programs (sha256 TEXT PRIMARY KEY, code TEXT NOT NULL)',
      'ALTER TABLE approvals ADD COLUMN code_sha256 TEXT',
    ],
  },
  {
    version: 12,
    statements: [
      // Runs that yielded (issue 35): where each stands and, once done, its final answer (JSON
      // text), so any instance of a cluster answers a wait or a cancel; a cancel asked on another
      // instance is left in `cancel_requested_by` for the owner to act on.
      `CREATE TABLE execution_runs (
         id TEXT PRIMARY KEY,
         owner TEXT NOT NULL,
         kind TEXT NOT NULL,
         tool TEXT,
         instance_id TEXT NOT NULL,
         status TEXT NOT NULL,
         started_at TEXT NOT NULL,
         snapshot TEXT NOT NULL,
         answer TEXT,
         cancel_requested_by TEXT,
         updated_at TEXT NOT NULL,
         expires_at TEXT NOT NULL
       )`,
      'CREATE INDEX execution_runs_expires ON execution_runs (expires_at)',
      // A caller's own runs, newest first; an owner's polling of cancels asked of its runs.
      'CREATE INDEX execution_runs_owner ON execution_runs (owner, id)',
      'CREATE INDEX execution_runs_instance ON execution_runs (instance_id, status)',
    ],
  },
  {
    version: 13,
    statements: [
      // Durable runs (issue 36): what is needed to run a program again (the caller and request
      // as JSON text, the program's digest, the seed), the owner's lease, and each host
      // interaction in order, to answer the replay from. Deleted when the run ends.
      `CREATE TABLE run_journals (
         id TEXT PRIMARY KEY,
         owner TEXT NOT NULL,
         caller TEXT NOT NULL,
         kind TEXT NOT NULL,
         tool TEXT,
         request TEXT NOT NULL,
         surface TEXT NOT NULL,
         program_sha256 TEXT NOT NULL,
         seed TEXT NOT NULL,
         instance_id TEXT NOT NULL,
         lease_until TEXT NOT NULL,
         resumed INTEGER NOT NULL,
         created_at TEXT NOT NULL
       )`,
      // Lapsed leases for another instance to claim; a restarted instance's own runs.
      'CREATE INDEX run_journals_lease ON run_journals (lease_until)',
      'CREATE INDEX run_journals_instance ON run_journals (instance_id)',
      `CREATE TABLE run_journal_entries (
         run_id TEXT NOT NULL,
         seq INTEGER NOT NULL,
         kind TEXT NOT NULL,
         data TEXT NOT NULL,
         PRIMARY KEY (run_id, seq)
       )`,
    ],
  },
  {
    version: 14,
    statements: [
      // How many times an execution was resumed from its journal after its instance stopped
      // (issue 36); 0 for the rest.
      'ALTER TABLE activity ADD COLUMN resumed INTEGER NOT NULL DEFAULT 0',
    ],
  },
  {
    version: 15,
    statements: [
      // A tool call's start on its execution's time axis (issue 39's waterfall), in ms from the
      // execution's start; NULL for executions and for calls recorded before.
      'ALTER TABLE activity ADD COLUMN offset_ms DOUBLE PRECISION',
    ],
  },
];
