/**
 * @module An upstream's requests for input during a call (`elicitation/create` in form mode, a
 * legacy server's request or an embedded request of a 2026-07-28 `input_required` result, which
 * the SDK client hands to the same handler and retries with the answer): answered by the call
 * that asked (CallOptions.askInput), else by the connection's fallback, else declined.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { InFlightCalls } from './input-owner.ts';
import type { AskInput, InputReply } from './types.ts';

/**
 * What codemux declares to its upstreams: form-mode elicitation, the schema's defaults filled
 * into an accepted answer's omitted fields (SEP-1034; the SDK client applies them).
 */
export const INPUT_CAPABILITIES = { elicitation: { form: { applyDefaults: true } } };

const DECLINE: InputReply = { action: 'decline' };

/** Registers the elicitation/create handler on `client` (before it connects). */
export function answerInputRequests(
  client: Client,
  calls: InFlightCalls,
  fallback: () => AskInput | undefined,
  /** Masks the server's credentials out of its text (as out of its results and errors). */
  mask: (text: string) => string,
): void {
  client.setRequestHandler('elicitation/create', async (request, ctx) => {
    const params = request.params;
    // Only form mode is declared: the SDK refuses URL mode before it gets here.
    if (params.mode === 'url') return DECLINE;
    const call = calls.owner();
    const ask = call?.options.askInput ?? fallback();
    if (!ask) return DECLINE;
    // A person answering is not the server being slow: the call's time limit stops meanwhile.
    const resume = call?.deadline.pause();
    try {
      const reply = await ask(
        {
          message: mask(params.message),
          requestedSchema: params.requestedSchema as Record<string, unknown>,
        },
        // Moot once the call ended, whatever the server says (it may never cancel its request).
        call?.ended ? AbortSignal.any([ctx.mcpReq.signal, call.ended]) : ctx.mcpReq.signal,
      );
      // A fresh object: the SDK fills the schema's defaults into it.
      return reply.action === 'accept'
        ? { action: 'accept', content: { ...reply.content } }
        : reply;
    } finally {
      resume?.();
    }
  });
}
