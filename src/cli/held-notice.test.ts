import { describe, expect, it } from 'vitest';
import { heldLine, howToDecide } from './held-notice.ts';

const HELD = {
  id: 'ap1',
  server: 'mut',
  tool: 'wipe',
  caller: 'admin',
  created_at: '2026-01-01T00:00:00.000Z',
};

describe("code exec's line for a held call (issue 33, items 8 and 17)", () => {
  it('names the CLI and the dashboard when both may decide (the default channels)', () => {
    expect(heldLine(HELD, ['elicitation', 'rest', 'dashboard', 'cli'])).toBe(
      "codemux: waiting for approval ap1 of mut.wipe: run `codemux approvals approve ap1` (or `codemux approvals deny ap1`) or decide on the dashboard's Approvals page\n",
    );
  });

  it.each([
    [['cli', 'rest'], 'run `codemux approvals approve ap1` (or `codemux approvals deny ap1`)'],
    [['dashboard', 'rest'], "decide on the dashboard's Approvals page"],
    [['rest', 'elicitation'], 'POST /api/v1/approvals/ap1/approve (or /deny) with the admin key'],
    [
      ['elicitation'],
      'nobody can decide it from here: tool_policy.approval_channels leaves out "cli", "dashboard" and "rest"; it expires after tool_policy.approval_timeout_ms',
    ],
  ] as const)('under approval_channels %j names only the open ways: %s', (channels, said) => {
    expect(howToDecide('ap1', channels)).toBe(said);
  });
});
