import { describe, expect, it } from 'vitest';
import { foreignRequest } from './local-origin.ts';

const PORT = 8080;

describe('foreignRequest', () => {
  it.each([
    [{ host: '127.0.0.1:8080' }],
    [{ host: 'localhost:8080', origin: 'http://localhost:3000' }],
    [{ host: 'LOCALHOST:8080' }],
    [{ host: '[::1]:8080', origin: 'http://[::1]:8080' }],
    [{ host: '127.1.2.3:8080', origin: 'https://127.0.0.1' }],
  ])('lets %j through', (headers) => {
    expect(foreignRequest(headers, PORT)).toBeUndefined();
  });
  it.each([
    [{ host: 'evil.example:8080' }, 'DNS rebinding'],
    [{ host: '10.0.0.5:8080' }, 'not this gateway'],
    [{ host: '127.0.0.1.evil.example:8080' }, 'not this gateway'],
    [{ host: '127.0.0.1.nip.io:8080' }, 'not this gateway'],
    [{ host: '127.0.0.1:9999' }, 'not this gateway'],
    [{ host: '127.0.0.1' }, 'not this gateway'],
    [{ host: '127.0.0.256:8080' }, 'not this gateway'],
    [{}, 'not this gateway'],
    [{ host: '127.0.0.1:8080', origin: 'https://evil.example' }, 'web origin'],
    [{ host: '127.0.0.1:8080', origin: 'null' }, 'web origin'],
    [{ host: '127.0.0.1:8080', origin: 'http://127.0.0.1.evil.example' }, 'web origin'],
    [{ host: '127.0.0.1:8080', origin: 'http://127.0.0.1.nip.io:8080' }, 'web origin'],
    [{ host: '127.0.0.1:8080', origin: 'file://' }, 'web origin'],
  ])('refuses %j', (headers, reason) => {
    expect(foreignRequest(headers, PORT)).toContain(reason);
  });
});
