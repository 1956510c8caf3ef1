import { describe, expect, it } from 'vitest';
import type { ToolPolicy } from '../../config/index.ts';
import { resolveConfig } from '../../config/index.ts';
import { ConfigError } from '../../errors/index.ts';
import { globMatch, judgeCall, policyCounts } from './tool-policy.ts';

const policy = (p: Partial<ToolPolicy>): ToolPolicy => ({
  default: 'allow',
  destructive: 'ask',
  rules: [],
  approvalTimeoutMs: 120_000,
  approvalChannels: ['elicitation', 'rest', 'dashboard', 'cli'],
  maxPendingPerCaller: 20,
  ...p,
});

describe('globMatch', () => {
  it.each([
    ['*', '', true],
    ['*', 'anything', true],
    ['delete_*', 'delete_repo', true],
    ['delete_*', 'delete_', true],
    ['delete_*', 'undelete_repo', false],
    ['*_file', 'write_file', true],
    ['*_file', 'write_files', false],
    ['a*b*c', 'aXXbYYc', true],
    ['a*b*c', 'aXXbYY', false],
    ['github', 'github', true],
    ['github', 'github2', false],
    ['gith?b', 'github', false],
    ['a.b', 'axb', false],
    ['**', 'x', true],
  ])('%s against %s is %s', (glob, name, expected) => {
    expect(globMatch(glob, name)).toBe(expected);
  });

  it('stays linear on a hostile glob', () => {
    const glob = `${'*a'.repeat(100)}b`;
    // Exponential backtracking would not return within the test's timeout.
    expect(globMatch(glob, 'a'.repeat(200))).toBe(false);
  });
});

describe('judgeCall', () => {
  const destructive = { destructiveHint: true };
  it.each([
    ['no rules, plain tool: the default', policy({}), 'fs', 'read', undefined, 'allow', 'default'],
    [
      'annotated destructive: destructive',
      policy({}),
      'fs',
      'write',
      destructive,
      'ask',
      'annotated destructive',
    ],
    [
      'destructive and read-only: not destructive',
      policy({}),
      'fs',
      'write',
      { destructiveHint: true, readOnlyHint: true },
      'allow',
      'default',
    ],
    [
      'destructiveHint false: the default',
      policy({ default: 'deny' }),
      'fs',
      'x',
      { destructiveHint: false },
      'deny',
      'default',
    ],
    [
      'a rule decides before annotations',
      policy({ rules: [{ server: 'fs', tool: 'write', action: 'allow' }] }),
      'fs',
      'write',
      destructive,
      'allow',
      'rule 1',
    ],
    [
      'first match wins, counted from 1',
      policy({
        rules: [
          { server: 'gh', tool: '*', action: 'allow' },
          { server: '*', tool: 'delete_*', action: 'deny' },
          { server: '*', tool: '*', action: 'ask' },
        ],
      }),
      'fs',
      'delete_file',
      undefined,
      'deny',
      'rule 2',
    ],
    [
      'a rule for another server does not match',
      policy({ rules: [{ server: 'gh', tool: '*', action: 'deny' }] }),
      'fs',
      'read',
      undefined,
      'allow',
      'default',
    ],
    [
      'destructive: deny',
      policy({ destructive: 'deny' }),
      'fs',
      'rm',
      destructive,
      'deny',
      'annotated destructive',
    ],
  ])('%s', (_label, p, server, tool, annotations, action, reason) => {
    expect(judgeCall(p, server, tool, annotations)).toEqual({ action, reason });
  });

  it('counts the listed tools under ask and deny', () => {
    const p = policy({ rules: [{ server: 'fs', tool: 'write_*', action: 'deny' }] });
    expect(
      policyCounts(p, [
        {
          name: 'fs',
          tools: [
            { name: 'read' },
            { name: 'write_file' },
            { name: 'move', annotations: { destructiveHint: true } },
          ],
        },
        { name: 'gh', tools: [{ name: 'delete_repo', annotations: { destructiveHint: true } }] },
      ]),
    ).toEqual({ ask: 2, deny: 1 });
  });
});

describe('tool_policy in the config', () => {
  const resolve = (raw: unknown) => resolveConfig(raw, { baseDir: '/tmp', source: 'cfg.json' });

  it('defaults: allow, destructive ask, no rules, 120 s', () => {
    expect(resolve({}).toolPolicy).toEqual({
      default: 'allow',
      destructive: 'ask',
      rules: [],
      approvalTimeoutMs: 120_000,
      approvalChannels: ['elicitation', 'rest', 'dashboard', 'cli'],
      maxPendingPerCaller: 20,
    });
  });

  it('takes every field', () => {
    const raw = {
      tool_policy: {
        default: 'deny',
        destructive: 'deny',
        rules: [{ server: 'fs', tool: 'read_*', action: 'allow' }],
        approval_timeout_ms: 1000,
        approval_channels: ['rest', 'cli', 'rest'],
        max_pending_per_caller: 3,
      },
    };
    expect(resolve(raw).toolPolicy).toEqual({
      default: 'deny',
      destructive: 'deny',
      rules: [{ server: 'fs', tool: 'read_*', action: 'allow' }],
      approvalTimeoutMs: 1000,
      approvalChannels: ['rest', 'cli'],
      maxPendingPerCaller: 3,
    });
  });

  it.each([
    [{ tool_policy: 'ask' }, 'tool_policy', 'must be an object'],
    [{ tool_policy: { default: 'maybe' } }, 'tool_policy.default', '"allow", "ask", "deny"'],
    [{ tool_policy: { destructive: true } }, 'tool_policy.destructive', '"allow", "ask", "deny"'],
    [
      { tool_policy: { approval_timeout_ms: 999 } },
      'tool_policy.approval_timeout_ms',
      'from 1000 to 86400000',
    ],
    [
      { tool_policy: { approval_timeout_ms: 86_400_001 } },
      'tool_policy.approval_timeout_ms',
      'from 1000 to 86400000',
    ],
    [{ tool_policy: { rules: {} } }, 'tool_policy.rules', 'must be an array'],
    [
      { tool_policy: { approval_channels: ['elicitation', 'email'] } },
      'tool_policy.approval_channels',
      '"elicitation", "rest", "dashboard", "cli"',
    ],
    [
      { tool_policy: { approval_channels: 'rest' } },
      'tool_policy.approval_channels',
      '"elicitation", "rest", "dashboard", "cli"',
    ],
    [
      { tool_policy: { max_pending_per_caller: 0 } },
      'tool_policy.max_pending_per_caller',
      'from 1 to 100',
    ],
    [
      { tool_policy: { max_pending_per_caller: 101 } },
      'tool_policy.max_pending_per_caller',
      'from 1 to 100',
    ],
    [{ tool_policy: { rules: ['x'] } }, 'tool_policy.rules[0]', '{server, tool, action}'],
    [
      { tool_policy: { rules: [{ server: 'a', tool: 'b' }] } },
      'tool_policy.rules[0].action',
      '"allow", "ask", "deny"',
    ],
    [
      { tool_policy: { rules: [{ server: '', tool: 'b', action: 'deny' }] } },
      'tool_policy.rules[0].server',
      'must not be empty',
    ],
    [
      { tool_policy: { rules: [{ server: 'a', tool: 7, action: 'deny' }] } },
      'tool_policy.rules[0].tool',
      'glob',
    ],
  ])('refuses %j naming %s', (raw, field, words) => {
    let error: unknown;
    try {
      resolve(raw);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(field);
    expect((error as Error).message).toContain(words);
  });

  it('warns of an unknown key inside tool_policy', () => {
    const config = resolve({ tool_policy: { rule: [] } });
    expect(config.warnings.join('\n')).toContain(
      'unknown key "rule" in tool_policy; did you mean `rules`?',
    );
  });
});
