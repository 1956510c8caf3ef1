/** @module tool_policy.approval_channels: which channels may decide a held call, and what a closed one is told. */
import type { ApprovalChannel, ResolvedConfig } from '../../config/index.ts';

/** Whether `channel` may decide approvals under `config` (read at each decision: hot-reloaded). */
export const channelOpen = (config: ResolvedConfig, channel: ApprovalChannel): boolean =>
  config.toolPolicy.approvalChannels.includes(channel);

/** Why `channel` may not decide, when tool_policy.approval_channels leaves it out. */
export function channelRefusal(
  channel: ApprovalChannel,
  allowed: readonly ApprovalChannel[],
): string | undefined {
  if (allowed.includes(channel)) return undefined;
  const listed = allowed.length === 0 ? 'none' : allowed.map((a) => `"${a}"`).join(', ');
  return `approvals cannot be decided through ${channel} on this gateway: tool_policy.approval_channels allows ${listed}; decide through one of those, or add "${channel}" to tool_policy.approval_channels`;
}
