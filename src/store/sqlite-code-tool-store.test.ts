import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { codeToolStoreContract } from './code-tool-store.contract.ts';
import { openStore } from './open-store.ts';

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-code-tools-'));

codeToolStoreContract('SQLite', async () => {
  const dir = tempDir();
  const store = openStore(dir);
  return {
    codeTools: store.codeTools,
    async dispose() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

it('tells a running store about tools another process changed', async () => {
  const dir = tempDir();
  const gateway = openStore(dir);
  // A second connection to the same file, as the CLI opens it.
  const cli = openStore(dir);
  try {
    const changed = new Promise<void>((resolve) => gateway.codeTools.onExternalChange(resolve));
    await cli.codeTools.create('fmt', {
      description: '',
      code: '1',
      timeout_ms: 5000,
      memory_limit_mb: 128,
      enabled: true,
      allowed_servers: [],
    });
    await changed;
    expect((await gateway.codeTools.get('fmt'))?.code).toBe('1');
  } finally {
    await cli.close();
    await gateway.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
