/** @module The largest JSON-RPC message an upstream may send, derived from the result bounds in force. */
import { MIN_UPSTREAM_MESSAGE_BYTES, UPSTREAM_MESSAGE_HEADROOM_BYTES } from './defaults.ts';
import type { ResolvedConfig } from './types.ts';

/**
 * A message (a stdio line, an HTTP body or event) may carry any result some dialect admits
 * (code_execution_max_result_bytes, code_mode.max_output_bytes), with room for its JSON-RPC
 * frame; anything larger is refused while it is read, before it is parsed or kept.
 */
export function maxUpstreamMessageBytes(config: ResolvedConfig): number {
  return (
    Math.max(
      MIN_UPSTREAM_MESSAGE_BYTES,
      config.codeExecution.maxResultBytes,
      config.codeMode.maxOutputBytes,
    ) + UPSTREAM_MESSAGE_HEADROOM_BYTES
  );
}
