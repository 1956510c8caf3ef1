/** @module `codemux code exec` without a gateway: the runtime in this process, recorded in the data dir's history. */
import type { ResolvedConfig } from '../config/index.ts';
import { ADMIN, channelRefusal, createRuntime } from '../execution/index.ts';
import { preloadSdk } from '../upstream/index.ts';
import type { Logger } from '../util/logger.ts';
import { exitCodeFor } from './exit-codes.ts';
import { printJson } from './output.ts';
import { TerminalChannel } from './terminal-channel.ts';

/** Runs the code_execution `args` here, prints the envelope and returns the exit code. */
export async function runStandalone(
  config: ResolvedConfig,
  args: Record<string, unknown>,
  logger: Logger,
): Promise<number> {
  // Standalone runs are recorded in the same history as the gateway's (the data dir's database),
  // and judged against the same tool pins.
  // An http/sse server signed in through the gateway is reached with the same tokens.
  const opener =
    config.activity.enabled ||
    config.toolPinning !== 'off' ||
    config.servers.some((s) => s.protocol !== 'stdio')
      ? await import('./open-store.ts')
      : undefined;
  const store = opener ? await opener.openStoreOrExit(config) : undefined;
  const runtime = createRuntime(config, logger, {
    warmWorkers: 1,
    ...(store && config.activity.enabled ? { activityStore: store.activity } : {}),
    ...(store && opener
      ? {
          toolPinStore: store.toolPins,
          approvalStore: store.approvals,
          oauth: opener.oauthOf(store, config),
        }
      : {}),
  });
  // The sandbox worker and the SDK load while the source is prepared.
  void runtime.start();
  if (config.servers.length > 0) preloadSdk();
  // A call under tool_policy "ask" is put to the person at this terminal (no one else could decide).
  const channel = new TerminalChannel({
    input: process.stdin,
    output: process.stderr,
    interactive: process.stdin.isTTY === true,
    closed: () => channelRefusal('cli', runtime.config().toolPolicy.approvalChannels),
  });
  try {
    const result = await runtime.service.execute(args, ADMIN, { surface: 'cli', channel });
    await printJson({
      ...result.envelope,
      ...(result.activityId ? { activity_id: result.activityId } : {}),
    });
    return exitCodeFor(result.envelope);
  } finally {
    channel.close();
    await runtime.stop();
    await store?.close();
  }
}
