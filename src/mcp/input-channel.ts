/**
 * @module The MCP client as an input channel: an upstream's request for input during a call
 * is relayed to the calling client's user with `elicitation/create` (form mode, the server's
 * own form), naming the server and tool, when the client declared elicitation.
 */
import type { InputChannel, InputRecord } from '../execution/index.ts';
import type { InputValue } from '../upstream/index.ts';

/** Who answered, as the input request records it. */
const BY_CLIENT = 'the MCP client (elicitation)';

/** How a server puts one form to its client (either SDK's elicitInput). */
export type ElicitForm = (
  params: { mode: 'form'; message: string; requestedSchema: Record<string, unknown> },
  signal: AbortSignal,
  timeoutMs: number,
) => Promise<{ action: string; content?: Record<string, unknown> }>;

/** What the client's user is shown: who asks, the server's own question, and where else to answer. */
export function inputMessage(input: InputRecord): string {
  const who = input.tool === null ? input.server : `${input.server} (tool ${input.tool})`;
  return [
    `codemux: the upstream server ${who} asks for input:`,
    input.message,
    `Input request ${input.id}; it can also be answered with \`codemux input answer ${input.id}\` or on the dashboard.`,
  ].join('\n');
}

/** Relays each input request to the client with `elicit`; its answer goes to the server as given. */
export function inputChannel(elicit: ElicitForm, timeoutMs: () => number): InputChannel {
  return async (input, signal) => {
    const answer = await elicit(
      { mode: 'form', message: inputMessage(input), requestedSchema: input.requested_schema },
      signal,
      timeoutMs(),
    );
    if (answer.action === 'accept') {
      const content = (answer.content ?? {}) as Record<string, InputValue>;
      return { reply: { action: 'accept', content }, by: BY_CLIENT };
    }
    return { reply: { action: answer.action === 'decline' ? 'decline' : 'cancel' }, by: BY_CLIENT };
  };
}
