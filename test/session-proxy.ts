/**
 * @module A small loopback balancer for tests, as docs/scale-out.md configures HAProxy: a request
 * whose Mcp-Session-Id (or ?sessionId=) starts with `<instance_id>.` goes to that instance while
 * it is up; anything else (a new session, an owner that is down) goes round-robin to one that is.
 */
import http from 'node:http';
import type net from 'node:net';

export interface Backend {
  instanceId: string;
  /** http://127.0.0.1:PORT */
  url: string;
  /** Marked down by the test, as a balancer's health check would. */
  up: boolean;
}

export interface SessionProxy {
  url: string;
  /** Requests each instance received through the proxy. */
  routed: Map<string, number>;
  stop(): Promise<void>;
}

function sessionOf(req: http.IncomingMessage): string | undefined {
  const header = req.headers['mcp-session-id'];
  if (typeof header === 'string') return header;
  return new URL(req.url ?? '/', 'http://x').searchParams.get('sessionId') ?? undefined;
}

export async function startSessionProxy(backends: Backend[]): Promise<SessionProxy> {
  let next = 0;
  const routed = new Map<string, number>();
  const pick = (session: string | undefined): Backend | undefined => {
    const owner = session?.includes('.') ? session.slice(0, session.indexOf('.')) : undefined;
    const owned = backends.find((b) => b.instanceId === owner && b.up);
    if (owned) return owned;
    const live = backends.filter((b) => b.up);
    if (live.length === 0) return undefined;
    return live[next++ % live.length];
  };
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    const backend = pick(sessionOf(req));
    if (!backend) {
      res.writeHead(503).end('no instance is up');
      return;
    }
    routed.set(backend.instanceId, (routed.get(backend.instanceId) ?? 0) + 1);
    const target = new URL(req.url ?? '/', backend.url);
    const upstream = http.request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    routed,
    stop: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
