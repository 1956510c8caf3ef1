/** @module The code tool store contract: code tools, their params in order and their immutable versions. */

/** The seven parameter types of a code tool (Vectoralix). */
export type CodeToolParamType =
  | 'string'
  | 'integer'
  | 'decimal'
  | 'date'
  | 'boolean'
  | 'array'
  | 'object';

export const CODE_TOOL_PARAM_TYPES: readonly CodeToolParamType[] = [
  'string',
  'integer',
  'decimal',
  'date',
  'boolean',
  'array',
  'object',
];

/** One parameter row; `default_value` is JSON (null = none). */
export interface CodeToolParam {
  name: string;
  description: string;
  type: CodeToolParamType;
  required: boolean;
  default_value: unknown;
}

/** The page-level fields, saved together. */
export interface CodeToolSettings {
  description: string;
  code: string;
  timeout_ms: number;
  memory_limit_mb: number;
  enabled: boolean;
  allowed_servers: string[];
}

export interface CodeTool extends CodeToolSettings {
  name: string;
  params: CodeToolParam[];
  /** The latest version number (0 before the first save). */
  version: number;
  created_at: string;
  updated_at: string;
}

/** An immutable snapshot of the page-level fields, made by each save. */
export interface CodeToolVersion extends CodeToolSettings {
  version: number;
  created_at: string;
}

export type ParamWrite = 'ok' | 'no_tool' | 'no_param' | 'exists';

/** Code tools; asynchronous so PostgreSQL fits behind the same contract. */
export interface CodeToolStore {
  /** Every tool with its params, by name. */
  list(): Promise<CodeTool[]>;
  get(name: string): Promise<CodeTool | undefined>;
  /**
   * Creates a tool with these settings and `params` (default none) in one transaction;
   * `versioned` records the settings as version 1, as a save would (else the tool is at
   * version 0). Undefined when the name is taken.
   */
  create(
    name: string,
    settings: CodeToolSettings,
    options?: { params?: readonly CodeToolParam[]; versioned?: boolean },
  ): Promise<CodeTool | undefined>;
  /** Saves the page-level fields together and records them as a new version; undefined when unknown. */
  save(name: string, settings: CodeToolSettings): Promise<CodeTool | undefined>;
  /** True when the tool existed. */
  remove(name: string): Promise<boolean>;
  /** Adds a param (`replacing` undefined) or replaces the row named `replacing`, keeping its place. */
  putParam(tool: string, param: CodeToolParam, replacing?: string): Promise<ParamWrite>;
  removeParam(tool: string, param: string): Promise<ParamWrite>;
  /** Newest first; undefined when the tool is unknown. */
  versions(name: string): Promise<CodeToolVersion[] | undefined>;
  version(name: string, version: number): Promise<CodeToolVersion | undefined>;
  /** Creates or replaces each tool with its params (one transaction); each gets a new version. */
  importTools(
    tools: ReadonlyArray<Omit<CodeTool, 'version' | 'created_at' | 'updated_at'>>,
  ): Promise<void>;
  /** Calls `listener` when another process changed the tools; returns the unsubscribe. */
  onExternalChange(listener: () => void): () => void;
  close(): Promise<void>;
}
