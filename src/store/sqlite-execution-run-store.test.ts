import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { executionRunStoreContract } from './execution-run-store.contract.ts';
import { openStore } from './open-store.ts';

executionRunStoreContract('SQLite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-runs-'));
  const store = openStore(dir);
  return {
    runs: store.executionRuns,
    async dispose() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
