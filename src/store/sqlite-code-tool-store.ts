/** @module Code tools in SQLite: a row per tool, its param rows in order, and its immutable versions. */
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
  CodeToolVersion,
} from './code-tool-store.ts';
import { sqliteCommits } from './sqlite-commits.ts';
import type { SqliteDatabase } from './sqlite-database.ts';

/** Code tools in an open database; closing the database is its owner's job. */
export function sqliteCodeToolStore(db: SqliteDatabase): CodeToolStore {
  const SETTINGS = 'description, code, timeout_ms, memory_limit_mb, enabled, allowed_servers';
  const allTools = db.prepare(`SELECT * FROM code_tools ORDER BY name`);
  const oneTool = db.prepare(`SELECT * FROM code_tools WHERE name = ?`);
  const paramsOf = db.prepare(
    'SELECT name, description, type, required, default_value FROM code_tool_params WHERE tool = ? ORDER BY position',
  );
  const insertTool = db.prepare(
    `INSERT INTO code_tools (name, ${SETTINGS}, version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const updateTool = db.prepare(
    'UPDATE code_tools SET description = ?, code = ?, timeout_ms = ?, memory_limit_mb = ?, enabled = ?, allowed_servers = ?, version = ?, updated_at = ? WHERE name = ?',
  );
  const touchTool = db.prepare('UPDATE code_tools SET updated_at = ? WHERE name = ?');
  const insertVersion = db.prepare(
    `INSERT INTO code_tool_versions (tool, version, ${SETTINGS}, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const allVersions = db.prepare(
    `SELECT version, ${SETTINGS}, created_at FROM code_tool_versions WHERE tool = ? ORDER BY version DESC`,
  );
  const oneVersion = db.prepare(
    `SELECT version, ${SETTINGS}, created_at FROM code_tool_versions WHERE tool = ? AND version = ?`,
  );
  const nextPosition = db.prepare(
    'SELECT COALESCE(MAX(position), -1) + 1 AS p FROM code_tool_params WHERE tool = ?',
  );
  const paramPosition = db.prepare(
    'SELECT position FROM code_tool_params WHERE tool = ? AND name = ?',
  );
  const insertParam = db.prepare(
    'INSERT INTO code_tool_params (tool, name, position, description, type, required, default_value) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const deleteParam = db.prepare('DELETE FROM code_tool_params WHERE tool = ? AND name = ?');
  const deleteParams = db.prepare('DELETE FROM code_tool_params WHERE tool = ?');
  const deleteVersions = db.prepare('DELETE FROM code_tool_versions WHERE tool = ?');
  const deleteTool = db.prepare('DELETE FROM code_tools WHERE name = ?');

  const load = (row: ToolRow): CodeTool => ({
    name: row.name,
    ...settingsOf(row),
    params: (paramsOf.all(row.name) as ParamRow[]).map(paramOf),
    version: row.version,
    created_at: row.created_at,
    updated_at: row.updated_at,
  });
  const find = (name: string) => {
    const row = oneTool.get(name) as ToolRow | undefined;
    return row ? load(row) : undefined;
  };
  const writeParam = (tool: string, position: number, p: CodeToolParam) =>
    insertParam.run(...paramValues(tool, position, p));
  /** Writes the settings as the tool's next version (in the caller's transaction). */
  const saveVersion = (name: string, current: number, settings: CodeToolSettings) => {
    const now = new Date().toISOString();
    insertVersion.run(name, current + 1, ...settingsValues(settings), now);
    updateTool.run(...settingsValues(settings), current + 1, now, name);
  };

  const create = db.transaction(
    (
      name: string,
      settings: CodeToolSettings,
      options: { params?: readonly CodeToolParam[]; versioned?: boolean } = {},
    ) => {
      if (oneTool.get(name)) return undefined;
      const now = new Date().toISOString();
      insertTool.run(name, ...settingsValues(settings), 0, now, now);
      if (options.versioned) saveVersion(name, 0, settings);
      for (const [i, p] of (options.params ?? []).entries()) writeParam(name, i, p);
      return find(name);
    },
  );
  const save = db.transaction((name: string, settings: CodeToolSettings) => {
    const row = oneTool.get(name) as ToolRow | undefined;
    if (!row) return undefined;
    saveVersion(name, row.version, settings);
    return find(name);
  });
  const putParam = db.transaction(
    (tool: string, param: CodeToolParam, replacing: string | undefined) => {
      if (!oneTool.get(tool)) return 'no_tool' as const;
      let position: number;
      if (replacing === undefined) {
        if (paramPosition.get(tool, param.name)) return 'exists' as const;
        position = (nextPosition.get(tool) as { p: number }).p;
      } else {
        const old = paramPosition.get(tool, replacing) as { position: number } | undefined;
        if (!old) return 'no_param' as const;
        if (param.name !== replacing && paramPosition.get(tool, param.name))
          return 'exists' as const;
        deleteParam.run(tool, replacing);
        position = old.position;
      }
      writeParam(tool, position, param);
      touchTool.run(new Date().toISOString(), tool);
      return 'ok' as const;
    },
  );
  const removeParam = db.transaction((tool: string, name: string) => {
    if (!oneTool.get(tool)) return 'no_tool' as const;
    if (deleteParam.run(tool, name).changes === 0) return 'no_param' as const;
    touchTool.run(new Date().toISOString(), tool);
    return 'ok' as const;
  });
  const remove = db.transaction((name: string) => {
    deleteParams.run(name);
    deleteVersions.run(name);
    return deleteTool.run(name).changes > 0;
  });
  const importTools = db.transaction(
    (tools: ReadonlyArray<Omit<CodeTool, 'version' | 'created_at' | 'updated_at'>>) => {
      for (const tool of tools) {
        const row = oneTool.get(tool.name) as ToolRow | undefined;
        const now = new Date().toISOString();
        if (!row) insertTool.run(tool.name, ...settingsValues(tool), 0, now, now);
        saveVersion(tool.name, row?.version ?? 0, tool);
        deleteParams.run(tool.name);
        for (const [i, p] of tool.params.entries()) writeParam(tool.name, i, p);
      }
    },
  );

  // Commits by other connections (the CLI, another process).
  const commits = sqliteCommits(db);

  return {
    list: async () => (allTools.all() as ToolRow[]).map(load),
    get: async (name) => find(name),
    create: async (name, settings, options) => create(name, settings, options),
    save: async (name, settings) => save(name, settings),
    remove: async (name) => remove(name),
    putParam: async (tool, param, replacing) => putParam(tool, param, replacing),
    removeParam: async (tool, name) => removeParam(tool, name),
    async versions(name) {
      if (!oneTool.get(name)) return undefined;
      return (allVersions.all(name) as VersionRow[]).map((row) => ({
        version: row.version,
        ...settingsOf(row),
        created_at: row.created_at,
      }));
    },
    async version(name, version): Promise<CodeToolVersion | undefined> {
      const row = oneVersion.get(name, version) as VersionRow | undefined;
      return row
        ? { version: row.version, ...settingsOf(row), created_at: row.created_at }
        : undefined;
    },
    importTools: async (tools) => importTools(tools),
    onExternalChange: (listener) => commits.onCommit(listener),
    async close() {
      commits.close();
    },
  };
}
