/**
 * @module `tool_policy`: what one upstream call may do before dispatch. Rules first (globs,
 * first match wins), then the tool's own annotations (destructive), then the default.
 */
import type { PolicyAction, ToolPolicy } from '../../config/index.ts';

/** What the policy says of one call, and why ("rule N", "annotated destructive", "default"). */
export interface PolicyVerdict {
  action: PolicyAction;
  reason: string;
}

/**
 * True when `name` matches `glob`, where `*` matches any run of characters (none included)
 * and every other character matches itself. Linear backtracking on the last star: a hostile
 * glob cannot make this exponential.
 */
export function globMatch(glob: string, name: string): boolean {
  if (glob === '*') return true;
  if (!glob.includes('*')) return glob === name;
  let g = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (g < glob.length && glob[g] !== '*' && glob[g] === name[n]) {
      g++;
      n++;
    } else if (g < glob.length && glob[g] === '*') {
      star = g++;
      resume = n;
    } else if (star >= 0) {
      g = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (g < glob.length && glob[g] === '*') g++;
  return g === glob.length;
}

/** MCP annotations that mark a tool destructive: destructiveHint true and not readOnlyHint true. */
export function annotatedDestructive(annotations: Record<string, unknown> | undefined): boolean {
  return annotations?.destructiveHint === true && annotations.readOnlyHint !== true;
}

/** The verdict on `server`.`tool` (whose listed annotations are `annotations`). */
export function judgeCall(
  policy: ToolPolicy,
  server: string,
  tool: string,
  annotations?: Record<string, unknown>,
): PolicyVerdict {
  const rules = policy.rules;
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]!;
    if (globMatch(rule.server, server) && globMatch(rule.tool, tool)) {
      return { action: rule.action, reason: `rule ${i + 1}` };
    }
  }
  if (annotatedDestructive(annotations))
    return { action: policy.destructive, reason: 'annotated destructive' };
  return { action: policy.default, reason: 'default' };
}

/** True when no call can be anything but allowed (the check is skipped). */
export function allowsEverything(policy: ToolPolicy): boolean {
  return (
    policy.default === 'allow' &&
    policy.destructive === 'allow' &&
    policy.rules.every((r) => r.action === 'allow')
  );
}

/** POLICY_DENIED's message: "server.tool is denied by tool_policy (rule N)". */
export function deniedMessage(server: string, tool: string, reason: string): string {
  return `${server}.${tool} is denied by tool_policy (${reason})`;
}

/** How many listed tools fall under `ask` and under `deny` (the banner, `servers list`). */
export function policyCounts(
  policy: ToolPolicy,
  servers: ReadonlyArray<{
    name: string;
    tools: ReadonlyArray<{ name: string; annotations?: Record<string, unknown> }>;
  }>,
): { ask: number; deny: number } {
  const counts = { ask: 0, deny: 0 };
  for (const server of servers) {
    for (const tool of server.tools) {
      const { action } = judgeCall(policy, server.name, tool.name, tool.annotations);
      if (action !== 'allow') counts[action]++;
    }
  }
  return counts;
}

/** policyCounts in words: "2 tools ask, 1 tool denied" (the banner, `servers list`). */
export function policyCountsText(counts: { ask: number; deny: number }): string {
  const tools = (n: number) => `${n} ${n === 1 ? 'tool' : 'tools'}`;
  return `${tools(counts.ask)} ${counts.ask === 1 ? 'asks' : 'ask'}, ${tools(counts.deny)} denied`;
}
