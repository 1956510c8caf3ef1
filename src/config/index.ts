/** @module Config: defaults, loading and resolution. */
export { configPath, loadConfig, logLevelFrom } from './load.ts';
export { isLoopback, resolveConfig } from './resolve.ts';
export type {
  CodeExecutionConfig,
  CodeModeConfig,
  ResolvedConfig,
  ServerConfig,
  UpstreamProtocol,
} from './types.ts';
export { watchConfig } from './watch.ts';
