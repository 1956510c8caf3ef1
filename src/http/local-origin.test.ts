import { describe, expect, it } from 'vitest';
import { foreignRequest } from './local-origin.ts';

describe('foreignRequest', () => {
  it.each([
    [{ host: '127.0.0.1:8080' }],
    [{ host: 'localhost:8080', origin: 'http://localhost:3000' }],
    [{ host: '[::1]:8080' }],
    [{ host: '127.0.0.1:8080', origin: 'null' }],
    [{}],
  ])('lets %j through', (headers) => {
    expect(foreignRequest(headers)).toBeUndefined();
  });
  it.each([
    [{ host: 'evil.example:8080' }, 'DNS rebinding'],
    [{ host: '127.0.0.1:8080', origin: 'https://evil.example' }, 'web origin'],
    [{ host: '10.0.0.5:8080' }, 'not this machine'],
  ])('refuses %j', (headers, reason) => {
    expect(foreignRequest(headers)).toContain(reason);
  });
});
