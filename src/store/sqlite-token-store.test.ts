import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from './open-store.ts';
import { tokenStoreContract } from './token-store.contract.ts';

tokenStoreContract('SQLite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-tokens-'));
  const store = openStore(dir);
  return {
    tokens: store.tokens,
    async dispose() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
