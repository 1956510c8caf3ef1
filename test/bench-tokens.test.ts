/**
 * `npm run bench:tokens` runs whole: every task's two trajectories reach the same answer against
 * the real servers (the script throws otherwise), and it ends with the headline line.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from './helpers.ts';

it('solves every task both ways with the same answer and prints the headline', async () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-test-'));
  const dir = path.join(parent, 'tokens');
  const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bench', 'tokens.js')], {
      env: { ...process.env, BENCH_TOKENS_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 110_000);
    child.on('close', (exit) => {
      clearTimeout(timer);
      resolve({ code: exit, out: text });
    });
  });
  expect(code, out).toBe(0);
  const last = out.trim().split('\n').at(-1) ?? '';
  const m =
    /^tokens: code mode (\d+) vs direct (\d+) \((\d\.\d\d) of direct\) over (\d+) tasks$/.exec(
      last,
    );
  expect(m, out).not.toBeNull();
  const [, n, total, ratio, tasks] = m!;
  expect(Number(tasks)).toBeGreaterThanOrEqual(10);
  expect(Number(n)).toBeLessThan(Number(total));
  expect(ratio).toBe((Number(n) / Number(total)).toFixed(2));
  expect(fs.existsSync(dir), 'the bench removes its folder').toBe(false);
  fs.rmSync(parent, { recursive: true, force: true });
}, 120_000);
