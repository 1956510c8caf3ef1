/** @module The execution service and its result types. */

export { ActivityLog, type ActivityPage, type ActivityWithChildren } from './activity/log.ts';
export {
  ACTIVITY_DEFAULT_LIMIT,
  ACTIVITY_MAX_LIMIT,
  integerParam,
  parseActivityQuery,
} from './activity/query.ts';
export { errorFor, featureDisabled, messageFor } from './caller-view.ts';
export {
  CodeModeService,
  type Diagnostic,
  type ExecuteOutcome,
  type ExecuteResult,
} from './code-mode-service.ts';
export { executeToolCalls } from './execute-result.ts';
export {
  type AttentionServer,
  type HourlySeries,
  type Overview,
  overviewOf,
  type PendingApprovalSummary,
} from './overview.ts';
export {
  type HeldTool,
  heldMessage,
  PINNED_FIELDS,
  type PinApproval,
} from './pinned-definition.ts';
export { type Approvals, argsDigest, MAX_APPROVALS_LISTED } from './policy/approvals.ts';
export { channelOpen, channelRefusal } from './policy/channels.ts';
export {
  type AnswerOutcome,
  INPUT_STATUSES,
  type InputChannel,
  type InputRecord,
  type InputRequests,
  type InputStatus,
} from './policy/input-requests.ts';
export {
  allowsEverything,
  annotatedDestructive,
  globMatch,
  judgeCall,
  type PolicyVerdict,
  policyCounts,
  policyCountsText,
} from './policy/tool-policy.ts';
export type {
  ApprovalDesk,
  CallerChannel,
  Decision,
  DecisionAnswer,
  DecisionRefusal,
} from './policy/types.ts';
export { continuesRun } from './runs/continue-request.ts';
export type {
  AwaitedApproval,
  AwaitedInput,
  RunEnd,
  RunKind,
  RunSnapshot,
} from './runs/live-run.ts';
export {
  continueRun,
  executeRefusal,
  type RunCallAnswer,
  type RunCallRequest,
  refusedResult,
  startCodeExecution,
  startCodeTool,
  startExecute,
} from './runs/run-calls.ts';
export { type RunAnswer, type RunRequest, Runs } from './runs/runs.ts';
export { createRuntime, type Runtime } from './runtime.ts';
export { ExecutionService, type ExecutionServiceDeps } from './service.ts';
export { ToolPins } from './tool-pins.ts';
export {
  ADMIN,
  type Caller,
  type Envelope,
  type ErrorBody,
  type ExecutionResult,
  type ToolCallRecord,
} from './types.ts';
export { EXACTLY_ONE_SOURCE_MESSAGE, validateRequest } from './validate-request.ts';
