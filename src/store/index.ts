/** @module Persistence: tokens, activity, code tools, pins, approvals and upstream OAuth (SQLite or PostgreSQL); the admin and secret key files. */
export { type AdminKey, API_KEY_FILE, ensureAdminKey, readAdminKey } from './admin-key.ts';
export { memoryApprovalStore } from './memory-approval-store.ts';
export { openConfiguredStore, openStore, type Store } from './open-store.ts';
export {
  loadSecretKey,
  parseSecretKey,
  SECRET_KEY_FILE,
  SECRET_KEY_VARIABLE,
  type SecretKey,
} from './secret-key.ts';
export { DATABASE_FILE } from './sqlite-database.ts';
export {
  ACTIVITY_KINDS,
  ACTIVITY_STATUSES,
  ACTIVITY_SURFACES,
  type ActivityKind,
  type ActivityQuery,
  type ActivityRecord,
  type ActivityStatus,
  type ActivityStore,
  type ActivitySurface,
  APPROVAL_STATUSES,
  type ApprovalDecideOutcome,
  type ApprovalRecord,
  type ApprovalStatus,
  type ApprovalStore,
  CODE_TOOL_PARAM_TYPES,
  type CodeTool,
  type CodeToolParam,
  type CodeToolParamType,
  type CodeToolSettings,
  type CodeToolStore,
  type CodeToolVersion,
  type HeldRunRecord,
  type OAuthCredentials,
  type OAuthCredentialsWrite,
  type OAuthFlow,
  type OAuthFlowStatus,
  type OAuthStore,
  type ParamWrite,
  type PinnedDefinition,
  type TokenRecord,
  type TokenStore,
  type ToolPin,
  type ToolPinStore,
} from './types.ts';
