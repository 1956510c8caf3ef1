import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from './open-store.ts';
import { toolPinStoreContract } from './tool-pin-store.contract.ts';

toolPinStoreContract('SQLite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-pins-'));
  const store = openStore(dir);
  return {
    pins: store.toolPins,
    async reopen() {
      const again = openStore(dir);
      return { pins: again.toolPins, close: () => again.close() };
    },
    async dispose() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
