/** @module Error codes and the error classes. */
export { CodemuxError, ConfigError } from './codemux-error.ts';
export {
  CALL_ERROR_CODES,
  type CallErrorCode,
  EXECUTION_ERROR_CODES,
  type ExecutionErrorCode,
} from './codes.ts';
export { RpcError } from './rpc-error.ts';
