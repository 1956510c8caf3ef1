/**
 * @module Code tools in PostgreSQL: the SQLite store's tables and rows; each write is one
 * transaction and then a change notice, so every other instance reloads its tools at once.
 */
import type pg from 'pg';
import {
  type ParamRow,
  paramOf,
  paramValues,
  settingsOf,
  settingsValues,
  type ToolRow,
  type VersionRow,
} from './code-tool-rows.ts';
import type {
  CodeTool,
  CodeToolParam,
  CodeToolSettings,
  CodeToolStore,
} from './code-tool-store.ts';
import type { PgDatabase } from './pg-database.ts';

const SETTINGS = 'description, code, timeout_ms, memory_limit_mb, enabled, allowed_servers';
type Queryable = Pick<pg.ClientBase, 'query'>;

async function load(q: Queryable, row: ToolRow): Promise<CodeTool> {
  const params = await q.query<ParamRow>(
    'SELECT name, description, type, required, default_value FROM code_tool_params WHERE tool = $1 ORDER BY position',
    [row.name],
  );
  return {
    name: row.name,
    ...settingsOf(row),
    params: params.rows.map(paramOf),
    version: row.version,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

async function toolRow(q: Queryable, name: string, lock = false): Promise<ToolRow | undefined> {
  const { rows } = await q.query<ToolRow>(
    `SELECT * FROM code_tools WHERE name = $1${lock ? ' FOR UPDATE' : ''}`,
    [name],
  );
  return rows[0];
}

async function find(q: Queryable, name: string): Promise<CodeTool | undefined> {
  const row = await toolRow(q, name);
  return row ? load(q, row) : undefined;
}

const writeParam = (q: Queryable, tool: string, position: number, p: CodeToolParam) =>
  q.query(
    'INSERT INTO code_tool_params (tool, name, position, description, type, required, default_value) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    paramValues(tool, position, p),
  );

/** Writes the settings as the tool's next version (in the caller's transaction). */
async function saveVersion(q: Queryable, name: string, current: number, s: CodeToolSettings) {
  const now = new Date().toISOString();
  await q.query(
    `INSERT INTO code_tool_versions (tool, version, ${SETTINGS}, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [name, current + 1, ...settingsValues(s), now],
  );
  await q.query(
    'UPDATE code_tools SET description = $1, code = $2, timeout_ms = $3, memory_limit_mb = $4, enabled = $5, allowed_servers = $6, version = $7, updated_at = $8 WHERE name = $9',
    [...settingsValues(s), current + 1, now, name],
  );
}

const insertTool = (q: Queryable, name: string, s: CodeToolSettings) => {
  const now = new Date().toISOString();
  return q.query(
    `INSERT INTO code_tools (name, ${SETTINGS}, version, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $8) ON CONFLICT (name) DO NOTHING`,
    [name, ...settingsValues(s), now],
  );
};

const touch = (q: Queryable, tool: string) =>
  q.query('UPDATE code_tools SET updated_at = $1 WHERE name = $2', [
    new Date().toISOString(),
    tool,
  ]);

export function pgCodeToolStore(db: PgDatabase): CodeToolStore {
  /** A write, then the notice to the other instances (only when something changed). */
  const write = async <T>(body: (q: pg.PoolClient) => Promise<T>, changed: (r: T) => boolean) => {
    const result = await db.transaction(body);
    if (changed(result)) await db.notify('code_tools');
    return result;
  };
  const unsubscribers = new Set<() => void>();

  return {
    async list() {
      const { rows } = await db.query<ToolRow>('SELECT * FROM code_tools ORDER BY name');
      return Promise.all(rows.map((row) => load(db.pool, row)));
    },
    get: (name) => find(db.pool, name),
    create: (name, settings, options = {}) =>
      write(
        async (q) => {
          const inserted = await insertTool(q, name, settings);
          if (!inserted.rowCount) return undefined;
          if (options.versioned) await saveVersion(q, name, 0, settings);
          for (const [i, p] of (options.params ?? []).entries()) await writeParam(q, name, i, p);
          return find(q, name);
        },
        (r) => r !== undefined,
      ),
    save: (name, settings) =>
      write(
        async (q) => {
          const row = await toolRow(q, name, true);
          if (!row) return undefined;
          await saveVersion(q, name, row.version, settings);
          return find(q, name);
        },
        (r) => r !== undefined,
      ),
    remove: (name) =>
      write(
        async (q) => {
          await q.query('DELETE FROM code_tool_params WHERE tool = $1', [name]);
          await q.query('DELETE FROM code_tool_versions WHERE tool = $1', [name]);
          return (
            ((await q.query('DELETE FROM code_tools WHERE name = $1', [name])).rowCount ?? 0) > 0
          );
        },
        (r) => r,
      ),
    putParam: (tool, param, replacing) =>
      write(
        async (q) => {
          if (!(await toolRow(q, tool, true))) return 'no_tool' as const;
          const positionOf = async (name: string) =>
            (
              await q.query<{ position: number }>(
                'SELECT position FROM code_tool_params WHERE tool = $1 AND name = $2',
                [tool, name],
              )
            ).rows[0]?.position;
          let position: number;
          if (replacing === undefined) {
            if ((await positionOf(param.name)) !== undefined) return 'exists' as const;
            const next = await q.query<{ p: number }>(
              'SELECT COALESCE(MAX(position), -1) + 1 AS p FROM code_tool_params WHERE tool = $1',
              [tool],
            );
            position = next.rows[0]!.p;
          } else {
            const old = await positionOf(replacing);
            if (old === undefined) return 'no_param' as const;
            if (param.name !== replacing && (await positionOf(param.name)) !== undefined)
              return 'exists' as const;
            await q.query('DELETE FROM code_tool_params WHERE tool = $1 AND name = $2', [
              tool,
              replacing,
            ]);
            position = old;
          }
          await writeParam(q, tool, position, param);
          await touch(q, tool);
          return 'ok' as const;
        },
        (r) => r === 'ok',
      ),
    removeParam: (tool, name) =>
      write(
        async (q) => {
          if (!(await toolRow(q, tool, true))) return 'no_tool' as const;
          const deleted = await q.query(
            'DELETE FROM code_tool_params WHERE tool = $1 AND name = $2',
            [tool, name],
          );
          if (!deleted.rowCount) return 'no_param' as const;
          await touch(q, tool);
          return 'ok' as const;
        },
        (r) => r === 'ok',
      ),
    async versions(name) {
      if (!(await toolRow(db.pool, name))) return undefined;
      const { rows } = await db.query<VersionRow>(
        `SELECT version, ${SETTINGS}, created_at FROM code_tool_versions WHERE tool = $1 ORDER BY version DESC`,
        [name],
      );
      return rows.map((row) => ({
        version: row.version,
        ...settingsOf(row),
        created_at: row.created_at,
      }));
    },
    async version(name, version) {
      const { rows } = await db.query<VersionRow>(
        `SELECT version, ${SETTINGS}, created_at FROM code_tool_versions WHERE tool = $1 AND version = $2`,
        [name, version],
      );
      const row = rows[0];
      return row
        ? { version: row.version, ...settingsOf(row), created_at: row.created_at }
        : undefined;
    },
    importTools: (tools) =>
      write(
        async (q) => {
          for (const tool of tools) {
            await insertTool(q, tool.name, tool);
            const row = (await toolRow(q, tool.name, true))!;
            await saveVersion(q, tool.name, row.version, tool);
            await q.query('DELETE FROM code_tool_params WHERE tool = $1', [tool.name]);
            for (const [i, p] of tool.params.entries()) await writeParam(q, tool.name, i, p);
          }
        },
        () => tools.length > 0,
      ),
    onExternalChange(listener) {
      // A notice from another instance, or a LISTEN reconnect (notices may have been missed).
      const stopChange = db.onChange('code_tools', listener);
      const stopState = db.onListenState((up) => {
        if (up) listener();
      });
      const stop = () => {
        stopChange();
        stopState();
        unsubscribers.delete(stop);
      };
      unsubscribers.add(stop);
      return stop;
    },
    async close() {
      for (const stop of [...unsubscribers]) stop();
    },
  };
}
