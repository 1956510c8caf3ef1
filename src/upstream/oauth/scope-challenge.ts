/**
 * @module What a `WWW-Authenticate: Bearer` challenge asks for (RFC 6750 section 3): its `scope`
 * (the scope a sign-in asks for by default, MCP's scope selection strategy) and whether it is a
 * 403 `insufficient_scope` (a step-up: sign in again for the union of what was granted and what
 * is asked, SEP-2350).
 */

/** The auth-params of a Bearer challenge, read left to right (quoted values unescaped). */
function paramsOf(challenge: string): Map<string, string> {
  const params = new Map<string, string>();
  const rest = challenge.replace(/^\s*bearer\b/i, '');
  const param = /[\s,]*([!#$%&'*+.^_`|~\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]*))/y;
  for (let match = param.exec(rest); match; match = param.exec(rest)) {
    const name = match[1]!.toLowerCase();
    const value = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : (match[3] ?? '');
    if (!params.has(name)) params.set(name, value);
  }
  return params;
}

function paramOf(challenge: string, name: string): string | undefined {
  return paramsOf(challenge).get(name);
}

/** Scope tokens of a space-separated list, deduplicated, order kept. */
export function scopesOf(list: string | undefined): string[] {
  return [...new Set((list ?? '').split(/\s+/).filter(Boolean))];
}

/** The challenge's `scope`, as scope tokens (empty when it names none). */
export function challengeScopes(challenge: string): string[] {
  return scopesOf(paramOf(challenge, 'scope'));
}

/** A Bearer challenge with `error="insufficient_scope"` (RFC 6750 3.1). */
export function isInsufficientScope(challenge: string): boolean {
  return /^\s*bearer\b/i.test(challenge) && paramOf(challenge, 'error') === 'insufficient_scope';
}

/** The union of scope lists, in first-seen order, as a `scope` parameter (undefined when empty). */
export function scopeUnion(...lists: readonly (readonly string[])[]): string | undefined {
  const all = [...new Set(lists.flat())];
  return all.length ? all.join(' ') : undefined;
}
