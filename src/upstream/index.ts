/** @module Upstream MCP servers: the contract, the SDK connection, the registry. */
export { ConcurrencyLimiter } from './limiter.ts';
export { type LinearRegExp, linearRegExp } from './linear-regexp.ts';
export { NeedsAuthError, needsSignInMessage } from './oauth/needs-auth.ts';
export type {
  CallbackOutcome,
  OAuthStanding,
  SignInFlowView,
  SignInStart,
  UpstreamAuth,
} from './oauth/types.ts';
export { SignInError, UpstreamOAuth } from './oauth/upstream-oauth.ts';
export { UpstreamRegistry } from './registry.ts';
export type { ConnectionFactory } from './registry-entry.ts';
export { disabledToolMessage } from './registry-entry.ts';
export { type BoundsVerdict, measureJson, sizeVerdict } from './result-bounds.ts';
export { boundedSchema, SCHEMA_LIMITS, type SchemaLimits, schemaExcess } from './schema-bounds.ts';
export { BoundedValidators, type SchemaVerdict } from './schema-validator.ts';
export { SdkConnection } from './sdk-connection.ts';
export { preloadSdk } from './sdk-modules.ts';
export {
  type AskInput,
  CALL_FAILURE_CODES,
  type CallFailureCode,
  type CallOptions,
  type CallOutcome,
  type ClusterSlots,
  type InputAsk,
  type InputReply,
  type InputValue,
  type ServerState,
  type ServerStatus,
  type ToolInfo,
  type UpstreamConnection,
  type UpstreamLog,
} from './types.ts';
