import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
const client = new Client({ name: 't', version: '1' }, { versionNegotiation: { mode: 'auto' } });
await client.connect(new StreamableHTTPClientTransport(new URL('http://127.0.0.1:7711/mcp')));
for (let w = 0; w < 6; w++) {
  const c0 = process.cpuUsage(); const t0 = performance.now();
  for (let i = 0; i < 500; i++) await client.callTool({ name: 'code_execution', arguments: { code: '1' } });
  const c = process.cpuUsage(c0);
  console.log(w, 'wall', ((performance.now() - t0) / 500).toFixed(2), 'ms; client cpu', ((c.user + c.system) / 500 / 1000).toFixed(2), 'ms');
}
await client.close();
