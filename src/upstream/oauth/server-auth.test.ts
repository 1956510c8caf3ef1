import { describe, expect, it } from 'vitest';
import { refreshLead, resourceMetadataOf } from './server-auth.ts';

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
  });
});
