/** @module Persistence: tokens, activity, code tools, pins, approvals, yielded runs, run journals and upstream OAuth (SQLite or PostgreSQL); the admin and secret key files. */

export {
  ACTIVITY_KINDS,
  ACTIVITY_STATUSES,
  ACTIVITY_SURFACES,
  type ActivityKind,
  type ActivityOverview,
  type ActivityQuery,
  type ActivityRecord,
  type ActivityStatus,
  type ActivityStore,
  type ActivitySurface,
  type FailingTool,
  type HourTally,
  type OverviewWindow,
  type ServerLatency,
} from './activity-store.ts';
export { type AdminKey, API_KEY_FILE, ensureAdminKey, readAdminKey } from './admin-key.ts';
export {
  APPROVAL_STATUSES,
  type ApprovalDecideOutcome,
  type ApprovalRecord,
  type ApprovalStatus,
  type ApprovalStore,
  type HeldRunRecord,
} from './approval-store.ts';
export {
  CODE_TOOL_PARAM_TYPES,
  type CodeTool,
  type CodeToolParam,
  type CodeToolParamType,
  type CodeToolSettings,
  type CodeToolStore,
  type CodeToolVersion,
  type ParamWrite,
} from './code-tool-store.ts';
export type {
  CancelRequest,
  ExecutionRunRecord,
  ExecutionRunStore,
  ExecutionRunWrite,
} from './execution-run-store.ts';
export { memoryActivityStore } from './memory-activity-store.ts';
export { memoryApprovalStore } from './memory-approval-store.ts';
export { memoryExecutionRunStore } from './memory-execution-run-store.ts';
export { memoryRunJournalStore } from './memory-run-journal-store.ts';
export type {
  OAuthCredentials,
  OAuthCredentialsWrite,
  OAuthFlow,
  OAuthFlowStatus,
  OAuthStore,
} from './oauth-store.ts';
export { type OpenOptions, openConfiguredStore, openStore, type Store } from './open-store.ts';
export type {
  ClaimOptions,
  JournalEntry,
  JournalRun,
  JournalRunKind,
  JournalSize,
  RunJournalStore,
} from './run-journal-store.ts';
export {
  loadSecretKey,
  parseSecretKey,
  SECRET_KEY_FILE,
  SECRET_KEY_VARIABLE,
  type SecretKey,
} from './secret-key.ts';
export { DATABASE_FILE } from './sqlite-database.ts';
export type { TokenRecord, TokenStore } from './token-store.ts';
export type { PinnedDefinition, ToolPin, ToolPinStore } from './tool-pin-store.ts';
