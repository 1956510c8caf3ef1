import { describe, expect, it } from 'vitest';
import { refreshDelay, refreshLead, resourceMetadataOf } from './server-auth.ts';

describe('refreshLead', () => {
  it('is a minute before expiry, or a fifth of a short life (at least a second)', () => {
    expect(refreshLead(undefined)).toBe(60_000);
    expect(refreshLead(3_600_000)).toBe(60_000);
    expect(refreshLead(100_000)).toBe(20_000);
    expect(refreshLead(4_000)).toBe(1_000);
    expect(refreshLead(1_000)).toBe(1_000);
  });
});

describe('resourceMetadataOf', () => {
  it("reads a Bearer challenge's resource_metadata, and nothing else", () => {
    expect(
      resourceMetadataOf(
        'Bearer error="invalid_token", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
      )?.href,
    ).toBe('https://mcp.example.com/.well-known/oauth-protected-resource/mcp');
    expect(resourceMetadataOf('Bearer realm="x"')).toBeUndefined();
    expect(resourceMetadataOf('Bearer resource_metadata="not a url"')).toBeUndefined();
    // Only on the server's own origin.
    const challenge = 'Bearer resource_metadata="https://evil.example.net/prm"';
    expect(resourceMetadataOf(challenge, 'https://mcp.example.com/mcp')).toBeUndefined();
    expect(resourceMetadataOf(challenge)?.host).toBe('evil.example.net');
  });
});

describe('refreshDelay', () => {
  it('waits until lead before expiry, never past what setTimeout can wait', () => {
    expect(refreshDelay(100_000, 10_000, 0)).toBe(90_000);
    expect(refreshDelay(5_000, 10_000, 0)).toBe(0);
    // A token for ten years: a later look, not a timer that fires at once (and again, and again).
    expect(refreshDelay(10 * 365 * 86_400_000, 60_000, 0)).toBe(2 ** 31 - 1);
  });
});
