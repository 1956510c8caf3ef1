import { describe, expect, it } from 'vitest';
import { classifyTransportError, type TransportVerdict } from './transport-failure.ts';

const withCause = (message: string, cause: unknown) => Object.assign(new Error(message), { cause });
const httpError = (status: number, message: string) =>
  Object.assign(new Error(`Streamable HTTP error: ${message}`), { code: status });
/** The 2.x SDK's SdkHttpError: a string code, the status in `status` (and `data.status`). */
const sdkHttpError = (status: number, message: string) =>
  Object.assign(new Error(message), {
    name: 'SdkHttpError',
    code: 'CLIENT_HTTP_NOT_IMPLEMENTED',
    status,
    data: { status },
  });
const sseError = () => Object.assign(new Error('SSE error: terminated'), { name: 'SseError' });

describe('classifyTransportError', () => {
  it.each<[string, unknown, 'http' | 'sse', TransportVerdict]>([
    ['refused', new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }), 'http', 'lost'],
    ['reset', withCause('fetch failed', { code: 'ECONNRESET' }), 'http', 'lost'],
    [
      'socket closed by the other side',
      withCause('terminated', { code: 'UND_ERR_SOCKET' }),
      'http',
      'lost',
    ],
    [
      'a wrapped SSE reconnect failure',
      new Error('Failed to reconnect SSE stream: fetch failed'),
      'http',
      'lost',
    ],
    [
      '404 session not found',
      httpError(404, 'Error POSTing to endpoint: {"message":"Session not found"}'),
      'http',
      'lost',
    ],
    [
      '404 on the event stream',
      new Error(
        'Failed to reconnect SSE stream: Streamable HTTP error: Failed to open SSE stream: Not Found',
      ),
      'http',
      'lost',
    ],
    ['500', httpError(500, 'Error POSTing to endpoint: injected failure'), 'http', 'flaky'],
    ['503', httpError(503, 'Error POSTing to endpoint: busy'), 'sse', 'flaky'],
    ['400', httpError(400, 'Error POSTing to endpoint: bad request'), 'http', 'call'],
    [
      'a request timeout',
      Object.assign(new Error('MCP error -32001: Request timed out'), { code: -32001 }),
      'http',
      'call',
    ],
    [
      'a tool error',
      Object.assign(new Error('MCP error -32602: Invalid params'), { code: -32602 }),
      'http',
      'call',
    ],
    [
      '2.x: 404 session not found',
      sdkHttpError(404, 'Error POSTing to endpoint: {"message":"Session not found"}'),
      'http',
      'lost',
    ],
    ['2.x: 502', sdkHttpError(502, 'Error POSTing to endpoint: bad gateway'), 'http', 'flaky'],
    ['2.x: 400', sdkHttpError(400, 'Error POSTing to endpoint: bad request'), 'http', 'call'],
    [
      '2.x: a request timeout',
      Object.assign(new Error('Request timed out'), { code: 'REQUEST_TIMEOUT' }),
      'http',
      'call',
    ],
    ['the legacy SSE stream broke', sseError(), 'sse', 'lost'],
    ['an SseError on a Streamable HTTP server is not special', sseError(), 'http', 'call'],
    ['not an error at all', 'weird', 'http', 'call'],
  ])('%s is %s/%s -> %s', (_name, error, protocol, verdict) => {
    expect(classifyTransportError(error, protocol)).toBe(verdict);
  });
});
