import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { ApprovalRecord } from '../store/index.ts';
import { decisionOf, NOT_A_TERMINAL_DECIDER, TerminalChannel } from './terminal-channel.ts';

const approval = (id: string): ApprovalRecord => ({
  id,
  status: 'pending',
  server: 'mut',
  tool: 'wipe',
  args: { path: '/tmp' },
  args_truncated: false,
  args_cut_keys: [],
  args_sha256: '0'.repeat(64),
  reason: 'annotated destructive',
  caller: 'admin',
  activity_id: null,
  code: null,
  created_at: '2026-01-01T00:00:00.000Z',
  expires_at: '2026-01-01T00:02:00.000Z',
  decided_by: null,
  decided_at: null,
  instance_id: 'i',
});

function terminal(interactive = true) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (d) => (shown += d));
  const channel = new TerminalChannel({ input, output, interactive });
  return { input, channel, shown: () => shown };
}

describe('TerminalChannel', () => {
  it.each([
    ['y', 'approve'],
    ['YES', 'approve'],
    [' y ', 'approve'],
    ['', 'deny'],
    ['n', 'deny'],
    ['yep', 'deny'],
    [undefined, 'deny'],
  ] as const)('reads %j as %s', (line, decision) => {
    expect(decisionOf(line)).toBe(decision);
  });

  it('asks one approval at a time, in order, on its output', async () => {
    const t = terminal();
    const first = t.channel.ask(approval('a1'), new AbortController().signal);
    const second = t.channel.ask(approval('a2'), new AbortController().signal);
    t.input.write('y\nn\n');
    expect(await first).toEqual({ decision: 'approve', by: 'terminal' });
    expect(await second).toEqual({ decision: 'deny', by: 'terminal' });
    expect(t.shown()).toContain('approval   a1\n  arguments  {"path":"/tmp"}\nApprove? [y/N] ');
    expect(t.shown().indexOf('a1')).toBeLessThan(t.shown().indexOf('a2'));
    t.channel.close();
  });

  it('names the keys an approval over 64 KiB does not show (issue 33, item 4)', async () => {
    const t = terminal();
    const cut = { ...approval('a3'), args_truncated: true, args_cut_keys: ['big', 'blob'] };
    const answer = t.channel.ask(cut, new AbortController().signal);
    t.input.write('n\n');
    expect(await answer).toEqual({ decision: 'deny', by: 'terminal' });
    expect(t.shown()).toContain(
      '  arguments  {"path":"/tmp"}\n  not shown  big, blob (the arguments are over 64 KiB; the digest covers them all)\nApprove? [y/N] ',
    );
    t.channel.close();
  });

  it('denies at the end of input', async () => {
    const t = terminal();
    const answer = t.channel.ask(approval('a1'), new AbortController().signal);
    t.input.end();
    expect(await answer).toEqual({ decision: 'deny', by: 'terminal' });
  });

  it('stops asking when the approval ends elsewhere', async () => {
    const t = terminal();
    const ended = new AbortController();
    const answer = t.channel.ask(approval('a1'), ended.signal);
    await vi.waitFor(() => expect(t.shown()).toContain('Approve? [y/N]'));
    ended.abort();
    expect(await answer).toBeUndefined();
    expect(t.shown()).toContain('approval a1 is no longer waiting');
    t.channel.close();
  });

  it('without a terminal denies at once, saying how to approve', async () => {
    const t = terminal(false);
    expect(await t.channel.ask(approval('a1'), new AbortController().signal)).toEqual({
      decision: 'deny',
      by: NOT_A_TERMINAL_DECIDER,
    });
  });
});
