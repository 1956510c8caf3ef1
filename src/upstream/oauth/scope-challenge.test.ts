import { describe, expect, it } from 'vitest';
import { challengeScopes, isInsufficientScope, scopesOf, scopeUnion } from './scope-challenge.ts';

describe('challengeScopes', () => {
  it.each([
    ['Bearer scope="mcp:basic", resource_metadata="https://x/prm"', ['mcp:basic']],
    ['Bearer resource_metadata="https://x/prm", scope="read  write read"', ['read', 'write']],
    ['Bearer error="insufficient_scope", scope=admin', ['admin']],
    ['Bearer realm="x"', []],
    // The `scope` inside another parameter's value is not the challenge's.
    ['Bearer error_description="missing scope=\\"x\\""', []],
  ])('reads %s', (challenge, scopes) => {
    expect(challengeScopes(challenge)).toEqual(scopes);
  });
});

describe('isInsufficientScope', () => {
  it.each([
    ['Bearer error="insufficient_scope", scope="mcp:write"', true],
    ['Bearer scope="a", error=insufficient_scope', true],
    ['Bearer error="invalid_token"', false],
    ['Basic error="insufficient_scope"', false],
    ['', false],
  ])('%s is %s', (challenge, expected) => {
    expect(isInsufficientScope(challenge)).toBe(expected);
  });
});

describe('scopeUnion', () => {
  it('keeps what was granted and adds what is asked, once each', () => {
    expect(scopeUnion(scopesOf('mcp:basic'), ['mcp:write', 'mcp:basic'])).toBe(
      'mcp:basic mcp:write',
    );
    expect(scopeUnion([], [])).toBeUndefined();
  });
});
