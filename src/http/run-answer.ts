/**
 * @module A run's answer as REST answers it, in one place for `POST /api/v1/code/exec` and
 * `/api/v1/executions`: a run that ended gives the body `POST /code/exec` gives (a code tool's
 * run too; an `execute` run Arion's result object), a run still going the running body, a
 * refused continue the REST error shape.
 */
import type { Context } from 'hono';
import { RpcError } from '../errors/index.ts';
import {
  type Envelope,
  type ErrorBody,
  EXACTLY_ONE_SOURCE_MESSAGE,
  type ExecuteOutcome,
  type ExecutionResult,
  type RunEnd,
  type RunSnapshot,
} from '../execution/index.ts';
import { restError } from './rest-error.ts';
import { statusFor } from './status.ts';
import type { GatewayEnv } from './types.ts';

type Ctx = Context<GatewayEnv>;

/** Where a run stands as a REST route got it: its end, or running still. */
export type RestRunAnswer =
  | { state: 'ended'; end: RunEnd<unknown>; snapshot: RunSnapshot }
  | { state: 'running'; snapshot: RunSnapshot };

/** Which surface a REST caller is: the CLI and the dashboard name themselves. */
export type RestSurface = 'rest' | 'cli' | 'ui';

/**
 * The CLI and the dashboard name themselves so the history shows where a run came from; only
 * the dashboard's own session may say `ui` (a key or token that claims it is recorded as rest).
 */
export function surfaceOf(c: Ctx): RestSurface {
  const header = c.req.header('x-codemux-surface');
  if (header === 'ui') return c.get('dashboard') === true ? 'ui' : 'rest';
  return header === 'cli' ? 'cli' : 'rest';
}

/** The both-or-neither refusal in the REST reference's own words (the MCP tool's are longer). */
export const REST_EXACTLY_ONE_SOURCE_MESSAGE =
  "Provide exactly one of 'code' (inline source) or 'script' (the name of a stored script)";

function inRestWords(envelope: Envelope): Envelope {
  if (envelope.ok || envelope.error.message !== EXACTLY_ONE_SOURCE_MESSAGE) return envelope;
  return { ...envelope, error: { ...envelope.error, message: REST_EXACTLY_ONE_SOURCE_MESSAGE } };
}

/** The body and status of a finished code_execution (or code tool) run: as `POST /code/exec` answers. */
export function executionResponse(c: Ctx, result: ExecutionResult, surface: RestSurface) {
  return c.json(
    {
      ...inRestWords(result.envelope),
      ...(result.activityId ? { activity_id: result.activityId } : {}),
      // The playground draws its timeline from these (as in MCP's structuredContent); other
      // callers keep the documented body.
      ...(surface === 'ui' ? { tool_calls: result.toolCalls, stats: result.stats } : {}),
      request_id: c.get('requestId'),
    },
    statusFor(result.envelope),
  );
}

/** The running body: `{ok: true, status: "running", execution_id, elapsed_ms, waiting_for, logs, request_id}`. */
export function runningResponse(c: Ctx, snapshot: RunSnapshot) {
  return c.json(
    {
      ok: true,
      status: 'running',
      execution_id: snapshot.execution_id,
      elapsed_ms: snapshot.elapsed_ms,
      waiting_for: snapshot.waiting_for,
      ...(snapshot.waiting_for_input ? { waiting_for_input: snapshot.waiting_for_input } : {}),
      logs: snapshot.logs,
      request_id: c.get('requestId'),
    },
    200,
  );
}

/** What code mode's `execute` threw (its JSON-RPC refusals) as a REST error. */
function thrownResponse(c: Ctx, thrown: unknown) {
  if (thrown instanceof RpcError && thrown.code === -32602) {
    return restError(c, 400, 'INVALID_REQUEST', thrown.message);
  }
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return restError(c, 500, 'EXECUTION_FAILED', message);
}

/** A run's answer: its end in the REST shape of its kind, or the running body. */
export function runAnswerResponse(c: Ctx, answer: RestRunAnswer, surface: RestSurface) {
  if (answer.state === 'running') return runningResponse(c, answer.snapshot);
  const { end, snapshot } = answer;
  if ('thrown' in end) return thrownResponse(c, end.thrown);
  if (snapshot.kind === 'execute') {
    // A run started by code mode's execute (on /mcp/codemode): Arion's result object.
    const { result, activityId } = end.result as ExecuteOutcome;
    return c.json(
      {
        ...result,
        ...(activityId ? { activity_id: activityId } : {}),
        request_id: c.get('requestId'),
      },
      200,
    );
  }
  return executionResponse(c, end.result as ExecutionResult, surface);
}

/** A refused continue in the REST error shape: EXECUTION_NOT_FOUND 404, INVALID_REQUEST 400. */
export function refusedResponse(c: Ctx, error: ErrorBody) {
  const status = error.code === 'EXECUTION_NOT_FOUND' ? 404 : 400;
  return restError(c, status, error.code, error.message);
}
