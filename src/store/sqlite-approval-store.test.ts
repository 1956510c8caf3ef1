import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { approvalStoreContract } from './approval-store.contract.ts';
import { openStore } from './open-store.ts';

approvalStoreContract('SQLite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-approvals-'));
  const store = openStore(dir);
  return {
    approvals: store.approvals,
    async dispose() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
