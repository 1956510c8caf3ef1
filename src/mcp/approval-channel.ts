/**
 * @module The MCP client as an approval channel: a held call is put to the client's user with
 * `elicitation/create` (form mode) when the client declared elicitation, and the request is
 * kept alive with progress notifications when it carries a progressToken.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { CallerChannel, Decision } from '../execution/index.ts';
import type { ApprovalRecord } from '../store/index.ts';
import { inputChannel } from './input-channel.ts';
import type { ToolsCallExtra } from './tools-call.ts';

/** Arguments longer than this are not put in the elicitation's message: it says to decide on the dashboard. */
const MESSAGE_ARGS_CHARS = 4_000;

/** The one field the form asks for. */
export const DECISION_SCHEMA = {
  type: 'object' as const,
  properties: {
    decision: {
      type: 'string' as const,
      title: 'Decision',
      description: 'approve sends the call with exactly these arguments; deny refuses it',
      enum: ['approve', 'deny'],
    },
  },
  required: ['decision'],
};

/** What the client's user is shown: server, tool, arguments, why, and where else to decide. */
export function elicitationMessage(approval: ApprovalRecord): string {
  const args = JSON.stringify(approval.args, null, 2) ?? 'null';
  // Never a silent cut: arguments too large for this message are not shown in part at all.
  const tooLarge = approval.args_truncated || args.length > MESSAGE_ARGS_CHARS;
  return [
    `codemux: a program wants to call ${approval.server}.${approval.tool} (tool_policy: ${approval.reason}).`,
    tooLarge
      ? `Arguments: too large to show here (${approval.args_truncated ? 'more than 64 KiB' : `${args.length} characters`}): decide on the dashboard's Approvals page, where they are shown whole (or GET /api/v1/approvals/${approval.id}/args).`
      : `Arguments:\n${args}`,
    `Approve to send it once with exactly these arguments (sha256 ${approval.args_sha256}), or deny it.`,
    `Approval ${approval.id}; it can also be decided with \`codemux approvals approve ${approval.id}\` or on the dashboard.`,
  ].join('\n');
}

/** How a server puts one elicitation to its client (either SDK's elicitInput). */
export type Elicit = (
  params: {
    mode: 'form';
    message: string;
    requestedSchema: typeof DECISION_SCHEMA;
  },
  signal: AbortSignal,
  timeoutMs: number,
) => Promise<{ action: string; content?: Record<string, unknown> }>;

/**
 * Asks the client's user with `elicitation/create` (form mode): approve or deny; never while
 * `open` says tool_policy.approval_channels leaves out "elicitation" (the agent's own client
 * must not approve its calls), then the call waits for the other channels.
 */
export function elicitationChannel(
  elicit: Elicit,
  timeoutMs: () => number,
  open: () => boolean,
): CallerChannel {
  return {
    ask: async (approval, signal) => {
      if (!open()) return undefined;
      const answer = await elicit(
        { mode: 'form', message: elicitationMessage(approval), requestedSchema: DECISION_SCHEMA },
        signal,
        timeoutMs(),
      );
      return { decision: decisionOf(answer), by: 'the MCP client (elicitation)' };
    },
  };
}

/** A form answer as a decision: only an accepted "approve" approves. */
export function decisionOf(answer: {
  action: string;
  content?: Record<string, unknown>;
}): Decision {
  return answer.action === 'accept' && answer.content?.decision === 'approve' ? 'approve' : 'deny';
}

/** The channel of one tools/call request on `server`. */
export function mcpApprovalChannel(
  server: Server,
  extra: ToolsCallExtra,
  timeoutMs: () => number,
  open: () => boolean,
): CallerChannel {
  const channel: CallerChannel = server.getClientCapabilities()?.elicitation
    ? {
        ...elicitationChannel(
          (params, signal, timeout) =>
            // On the tool call's own stream; given up when another channel decides first.
            server.elicitInput(params, { relatedRequestId: extra.requestId, signal, timeout }),
          timeoutMs,
          open,
        ),
        // An upstream's question is the client's user's to answer (approval_channels is about approving).
        askInput: inputChannel(
          (params, signal, timeout) =>
            server.elicitInput(params as never, {
              relatedRequestId: extra.requestId,
              signal,
              timeout,
            }),
          timeoutMs,
        ),
      }
    : {};
  const progress = progressChannel(extra._meta?.progressToken, extra.sendNotification);
  return { ...channel, ...progress };
}

/** Progress notifications on the request's own stream, when the request carries a progressToken. */
export function progressChannel(
  token: string | number | undefined,
  notify: ((notification: ServerNotification) => Promise<void>) | undefined,
): CallerChannel {
  if (token === undefined || !notify) return {};
  let progress = 0;
  return {
    progress: (message) => {
      progress++;
      notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress, message },
      }).catch(() => {});
    },
  };
}
