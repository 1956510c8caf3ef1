/** @module What an execution returns to every surface. */
import type { TypeDiagnostic } from '../typecheck/index.ts';

export interface ErrorBody {
  code: string;
  message: string;
  stack?: string;
  line?: number;
  column?: number;
}

/** The JSON envelope of the contract: `content[0].text` in MCP, the body in REST and the CLI; `diagnostics`: the type check's findings, when there are any. */
export type Envelope =
  | { ok: true; value: unknown; logs?: string[]; diagnostics?: TypeDiagnostic[] }
  | { ok: false; error: ErrorBody; logs?: string[]; diagnostics?: TypeDiagnostic[] };

export interface ToolCallRecord {
  server: string;
  tool: string;
  ok: boolean;
  duration_ms: number;
  /** The error code when not ok. */
  code?: string;
}

export interface ExecutionResult {
  envelope: Envelope;
  toolCalls: ToolCallRecord[];
  stats: { duration_ms: number; tool_calls: number };
  /** The activity record of this execution, when history is on. */
  activityId?: string;
}

/** Who is asking: the administrator, or an agent token limited to its servers and code tools. */
export type Caller =
  | { kind: 'admin' }
  | {
      kind: 'agent';
      name: string;
      servers: readonly string[];
      /** Code tools the token may see and call; absent = none. */
      codeTools?: readonly string[];
    };

/** True when `caller` may see and call the code tool `name`. */
export const mayUseCodeTool = (caller: Caller, name: string): boolean =>
  caller.kind === 'admin' || (caller.codeTools ?? []).includes(name);

export const ADMIN: Caller = { kind: 'admin' };
