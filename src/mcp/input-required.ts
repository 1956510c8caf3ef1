/**
 * @module Approvals for 2026-07-28 clients: a held call is put to the client as an
 * `input_required` result (an elicitation and a sealed `requestState`) while the program stays
 * held in place (execution/policy/held-runs.ts). The retried call, on any instance, carries the
 * answer: it is decided through the approval desk (the store: the first decision wins), and
 * the retry answers with where the program stands next: its result, or the next approval.
 */
import { createHash } from 'node:crypto';
import {
  inputRequired,
  inputResponse,
  ProtocolError,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { callerLabel } from '../execution/activity/entry.ts';
import { type Caller, type CallerChannel, channelOpen, type Runtime } from '../execution/index.ts';
import type { RunStanding } from '../execution/policy/held-runs.ts';
import type { InputValue } from '../upstream/index.ts';
import { canonicalJson } from '../util/canonical-json.ts';
import { DECISION_SCHEMA, decisionOf, elicitationMessage } from './approval-channel.ts';
import { inputMessage } from './input-channel.ts';
import type { ToolsCallParams } from './tools-call.ts';

/** The inputRequests key of the approval form. */
const APPROVAL_INPUT = 'approval';
/** The inputRequests key of an upstream's form, relayed. */
const UPSTREAM_INPUT = 'input';
/** Who answered an upstream's form this way, as the input request records it. */
const BY_RETRY = 'the MCP client (input_required)';
/** What the sealed state is bound to (AES-GCM associated data). */
const STATE_AAD = 'mcp-request-state';
/** JSON-RPC InvalidParams. */
const INVALID_PARAMS = -32602;
/** The most a retry waits for the program to move on before asking again. */
const RETRY_WAIT_MS = 30_000;

/** What a client carries between the held call and its retry (sealed: it reads nothing of it). */
export interface HeldState {
  run: string;
  /** What the program waits on: an approval's id, or an input request's (`input: true`). */
  approval: string;
  input?: true;
  caller: string;
  /** The call that was held: a retry must repeat it (tool name and arguments' digest). */
  call: string;
}

/** The digest a held state is bound to: the tool and its arguments. */
function callDigest(params: ToolsCallParams): string {
  return createHash('sha256')
    .update(`${params.name}\0${canonicalJson(params.arguments)}`)
    .digest('hex');
}

/** Seals and opens held states with the runtime's secret key (shared by a cluster's instances). */
export function heldStateCodec(runtime: Runtime) {
  return {
    seal: (state: HeldState) => runtime.secretBox().seal(JSON.stringify(state), STATE_AAD),
    /** The ServerOptions.requestState.verify hook: throws (the SDK answers -32602) on anything else. */
    open: (sealed: string): HeldState => {
      const state = JSON.parse(runtime.secretBox().open(sealed, STATE_AAD)) as HeldState;
      if (typeof state?.run !== 'string' || typeof state.approval !== 'string')
        throw new Error('malformed');
      return state;
    },
  };
}

/**
 * Runs one tools/call of a 2026-07-28 client that declared elicitation: the first call runs
 * the program; a retry with a held state decides its approval and reads where it stands.
 */
export async function callWithInputRequired(
  runtime: Runtime,
  params: ToolsCallParams,
  ctx: ServerContext,
  caller: Caller,
  run: (channel: CallerChannel, signal: AbortSignal) => Promise<unknown>,
): Promise<unknown> {
  const codec = heldStateCodec(runtime);
  const who = callerLabel(caller);
  const call = callDigest(params);
  const answer = async (id: string, standing: RunStanding): Promise<unknown> => {
    // Decided already (here or elsewhere) but the program has not moved on yet: never show the
    // form again; the client retries with the state alone and waits for it once more.
    const decided =
      standing.state === 'held'
        ? (await runtime.approvals.get(standing.approval.id))?.status !== 'pending'
        : standing.state === 'input' && runtime.inputs.get(standing.input.id)?.status !== 'pending';
    return standingAnswer(codec.seal, { run: id, caller: who, call }, standing, decided);
  };
  const state = ctx.mcpReq.requestState<HeldState>();
  if (state === undefined) {
    const { id, standing } = await runtime.heldRuns.start(who, run, ctx.mcpReq.signal);
    return answer(id, standing);
  }
  if (state.caller !== who || state.call !== call) {
    throw new ProtocolError(
      INVALID_PARAMS,
      'requestState belongs to another call: retry the held call with the same tool, arguments and key',
    );
  }
  if (state.input) {
    // An upstream's question, answered here (the instance holding the call: values are not stored).
    const reply = inputResponse(ctx.mcpReq.inputResponses, UPSTREAM_INPUT);
    if (reply.kind === 'elicit') {
      runtime.inputs.answer(
        state.approval,
        reply.action === 'accept'
          ? { action: 'accept', content: (reply.content ?? {}) as Record<string, InputValue> }
          : { action: reply.action },
        BY_RETRY,
      );
    }
  }
  const response = inputResponse(ctx.mcpReq.inputResponses, APPROVAL_INPUT);
  // Only while tool_policy.approval_channels lists "elicitation" (it may have changed since).
  if (!state.input && response.kind === 'elicit' && channelOpen(runtime.config(), 'elicitation')) {
    // The first decision wins on any instance; one already taken elsewhere stands.
    await runtime.approvals.decide(
      state.approval,
      decisionOf(response),
      'the MCP client (input_required)',
    );
  }
  const standing = await runtime.heldRuns.after(
    state.run,
    who,
    state.approval,
    RETRY_WAIT_MS,
    ctx.mcpReq.signal,
  );
  return answer(state.run, standing);
}

/** A standing as the tools/call answer: the result, the next question, or an error. */
function standingAnswer(
  seal: (state: HeldState) => string,
  base: Omit<HeldState, 'approval'>,
  standing: RunStanding,
  decided: boolean,
): unknown {
  if (standing.state === 'done') return standing.result;
  if (standing.state === 'unknown') {
    throw new ProtocolError(
      INVALID_PARAMS,
      'the held program is no longer known here (it ended more than tool_policy.approval_timeout_ms ago, or its instance stopped); call the tool again',
    );
  }
  if (standing.state === 'input') {
    const requestState = seal({ ...base, approval: standing.input.id, input: true });
    if (decided) return inputRequired({ requestState });
    return inputRequired({
      inputRequests: {
        [UPSTREAM_INPUT]: inputRequired.elicit({
          mode: 'form',
          message: inputMessage(standing.input),
          requestedSchema: standing.input.requested_schema as never,
        }),
      },
      requestState,
    });
  }
  const { approval } = standing;
  const requestState = seal({ ...base, approval: approval.id });
  if (decided) return inputRequired({ requestState });
  return inputRequired({
    inputRequests: {
      [APPROVAL_INPUT]: inputRequired.elicit({
        mode: 'form',
        message: elicitationMessage(approval),
        requestedSchema: DECISION_SCHEMA,
      }),
    },
    requestState,
  });
}
