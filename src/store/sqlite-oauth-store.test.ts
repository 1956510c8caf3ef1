import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { oauthStoreContract } from './oauth-store.contract.ts';
import { openStore } from './open-store.ts';

oauthStoreContract('SQLite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-oauth-'));
  const store = openStore(dir);
  return {
    oauth: store.oauth,
    async dispose() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
