/**
 * @module The MCP client as an approval channel: a held call is put to the client's user with
 * `elicitation/create` (form mode) when the client declared elicitation, and the request is
 * kept alive with progress notifications when it carries a progressToken.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallerChannel } from '../execution/index.ts';
import type { ApprovalRecord } from '../store/index.ts';
import type { ToolsCallExtra } from './tools-call.ts';

/** Arguments longer than this are cut in the elicitation's message (the approval holds them whole). */
const MESSAGE_ARGS_CHARS = 4_000;

/** The one field the form asks for. */
const DECISION_SCHEMA = {
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
  const shown = args.length > MESSAGE_ARGS_CHARS ? `${args.slice(0, MESSAGE_ARGS_CHARS)}…` : args;
  return [
    `codemux: a program wants to call ${approval.server}.${approval.tool} (tool_policy: ${approval.reason}).`,
    `Arguments:\n${shown}`,
    `Approve to send it once with exactly these arguments (sha256 ${approval.args_sha256}), or deny it.`,
    `Approval ${approval.id}; it can also be decided with \`codemux approvals approve ${approval.id}\` or on the dashboard.`,
  ].join('\n');
}

/** The channel of one tools/call request on `server`. */
export function mcpApprovalChannel(
  server: Server,
  extra: ToolsCallExtra,
  timeoutMs: () => number,
): CallerChannel {
  const channel: CallerChannel = {};
  if (server.getClientCapabilities()?.elicitation) {
    channel.ask = async (approval, signal) => {
      const answer = await server.elicitInput(
        { mode: 'form', message: elicitationMessage(approval), requestedSchema: DECISION_SCHEMA },
        // On the tool call's own stream; given up when another channel decides first.
        { relatedRequestId: extra.requestId, signal, timeout: timeoutMs() },
      );
      const approved = answer.action === 'accept' && answer.content?.decision === 'approve';
      return { decision: approved ? 'approve' : 'deny', by: 'the MCP client (elicitation)' };
    };
  }
  const token = extra._meta?.progressToken;
  const notify = extra.sendNotification;
  if (token !== undefined && notify) {
    let progress = 0;
    channel.progress = (message) => {
      progress++;
      notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress, message },
      }).catch(() => {});
    };
  }
  return channel;
}
