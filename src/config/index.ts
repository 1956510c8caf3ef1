/** @module Config: defaults, loading and resolution. */

export {
  ConfigEditError,
  ConfigFile,
  type EditResult,
  HIDDEN_VALUE,
  MAX_TOOL_NAME_CHARS,
  shownEntry,
} from './config-file.ts';
export {
  APPROVAL_CHANNELS,
  type ApprovalChannel,
  POLICY_ACTIONS,
  type PolicyAction,
  TOOL_PINNING_MODES,
  type ToolPinning,
} from './defaults.ts';
export {
  configLocation,
  configPath,
  loadConfig,
  loadConfigFrom,
  logFormatFrom,
  logLevelFrom,
} from './load.ts';
export { isLoopback, resolveConfig } from './resolve.ts';
export type { Located, RawEntry } from './server-entries.ts';
export type {
  CodeExecutionConfig,
  CodeModeConfig,
  PolicyRule,
  ResolvedConfig,
  ServerConfig,
  TelemetryConfig,
  ToolPolicy,
  TracesConfig,
  UpstreamOAuthConfig,
  UpstreamProtocol,
} from './types.ts';
export { maxUpstreamMessageBytes } from './upstream-bound.ts';
export { type ConfigWatch, watchConfig } from './watch.ts';
