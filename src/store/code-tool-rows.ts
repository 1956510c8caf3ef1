/** @module The code tool tables' rows, shared by the SQLite and PostgreSQL code tool stores: booleans as 0/1, JSON as text. */
import type { CodeToolParam, CodeToolParamType, CodeToolSettings } from './code-tool-store.ts';

export interface SettingsRow {
  description: string;
  code: string;
  timeout_ms: number;
  memory_limit_mb: number;
  enabled: number;
  allowed_servers: string;
}
export interface ToolRow extends SettingsRow {
  name: string;
  version: number;
  created_at: string;
  updated_at: string;
}
export interface VersionRow extends SettingsRow {
  version: number;
  created_at: string;
}
export interface ParamRow {
  name: string;
  description: string;
  type: string;
  required: number;
  default_value: string | null;
}

export const settingsOf = (row: SettingsRow): CodeToolSettings => ({
  description: row.description,
  code: row.code,
  timeout_ms: row.timeout_ms,
  memory_limit_mb: row.memory_limit_mb,
  enabled: row.enabled === 1,
  allowed_servers: JSON.parse(row.allowed_servers) as string[],
});

export const paramOf = (row: ParamRow): CodeToolParam => ({
  name: row.name,
  description: row.description,
  type: row.type as CodeToolParamType,
  required: row.required === 1,
  default_value: row.default_value === null ? null : JSON.parse(row.default_value),
});

export const settingsValues = (s: CodeToolSettings) => [
  s.description,
  s.code,
  s.timeout_ms,
  s.memory_limit_mb,
  s.enabled ? 1 : 0,
  JSON.stringify(s.allowed_servers),
];

/** A param row's column values, in the order (tool, name, position, description, type, required, default_value). */
export const paramValues = (tool: string, position: number, p: CodeToolParam) => [
  tool,
  p.name,
  position,
  p.description,
  p.type,
  p.required ? 1 : 0,
  p.default_value === null || p.default_value === undefined
    ? null
    : JSON.stringify(p.default_value),
];
