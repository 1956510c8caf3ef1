/**
 * The OAuth demo as docs/oauth.md prints it (`npm run oauth-demo`, then a gateway on the config it
 * writes) leaves a clone as it found it, and its gateway does not take `npm start`'s port. The
 * clone is a fresh git repository with the project's own .gitignore, so the check does not
 * depend on what other tests do to this tree meanwhile.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import {
  DEFAULT_AS_PORT,
  DEFAULT_GATEWAY_PORT,
  DEFAULT_MCP_PORT,
  DEMO_DIR,
} from './fixtures/oauth/demo-config.ts';
import { type RunningGateway, startGateway } from './gateway.ts';
import { ROOT } from './helpers.ts';
import { freePort } from './http-servers.ts';

const DEMO = path.join(ROOT, 'test', 'fixtures', 'oauth', 'demo.ts');
// `--import tsx` by path: the scratch clone has no node_modules of its own.
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs');

const porcelain = (dir: string) =>
  execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
    cwd: dir,
    encoding: 'utf8',
  });

let demo: ChildProcess | undefined;
let gateway: RunningGateway | undefined;
const scratch: string[] = [];
afterEach(async () => {
  await gateway?.stop();
  demo?.kill('SIGKILL');
  for (const dir of scratch.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

it('the demo and its gateway leave nothing untracked, and stay off npm start port', async () => {
  const npmStart = JSON.parse(
    fs.readFileSync(path.join(ROOT, 'examples', 'mcp_config.json'), 'utf8'),
  ) as { listen: string };
  const npmStartPort = Number(npmStart.listen.split(':').at(-1));
  expect([DEFAULT_AS_PORT, DEFAULT_MCP_PORT, DEFAULT_GATEWAY_PORT]).not.toContain(npmStartPort);

  const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-demo-'));
  scratch.push(clone);
  execFileSync('git', ['init', '-q'], { cwd: clone });
  fs.copyFileSync(path.join(ROOT, '.gitignore'), path.join(clone, '.gitignore'));
  const before = porcelain(clone);

  const [asPort, mcpPort, gatewayPort] = [await freePort(), await freePort(), await freePort()];
  const child = spawn(
    process.execPath,
    [
      '--import',
      TSX,
      DEMO,
      ...['--as-port', String(asPort), '--mcp-port', String(mcpPort)],
      ...['--gateway-port', String(gatewayPort)],
    ],
    { cwd: clone, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  demo = child;
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => child.on('close', resolve));
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (output.includes('Ctrl-C stops')) resolve();
      else if (child.exitCode !== null) reject(new Error(`the demo ended:\n${output}`));
    };
    child.stdout!.on('data', check);
    child.on('close', check);
  });
  const configFile = path.join(DEMO_DIR, 'mcp_config.json');
  expect(output).toContain(`node bin/codemux.js serve --config ${configFile}`);
  const written = path.join(clone, configFile);
  const config = JSON.parse(fs.readFileSync(written, 'utf8')) as { listen: string };
  expect(config.listen).toBe(`127.0.0.1:${gatewayPort}`);

  // The gateway the docs start next: its data dir goes beside the config.
  gateway = await startGateway(written, { port: gatewayPort });
  expect(fs.existsSync(path.join(clone, DEMO_DIR, 'data'))).toBe(true);
  await gateway.stop();
  gateway = undefined;
  child.kill('SIGINT');
  await exited;

  expect(porcelain(clone)).toBe(before);
}, 60_000);
