/** @module The stub a dry run (the playground) answers every upstream call with. */
import type { CallRequest } from '../sandbox/index.ts';
import { type CallOutcome, disabledToolMessage, type UpstreamRegistry } from '../upstream/index.ts';

/** The stub a dry run answers with: the call is judged like any other, then not sent. */
export function dryRunOutcome(registry: UpstreamRegistry, request: CallRequest): CallOutcome {
  if (!registry.server(request.server)) {
    return { ok: false, code: 'SERVER_NOT_FOUND', message: `server not found: ${request.server}` };
  }
  if (registry.server(request.server)?.disabledTools.includes(request.tool)) {
    const message = disabledToolMessage(request.server, request.tool);
    return { ok: false, code: 'TOOL_NOT_FOUND', message };
  }
  const note = `dry run: ${request.server}.${request.tool} was not called`;
  return {
    ok: true,
    result: {
      content: [{ type: 'text', text: note }],
      structuredContent: { dry_run: true, server: request.server, tool: request.tool },
    },
  };
}
