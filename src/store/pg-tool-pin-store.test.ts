import { afterAll, beforeAll, expect, it } from 'vitest';
import { type SharedPostgres, sharedPostgres } from '../../test/shared-postgres.ts';
import { openPgStore } from './pg-store.ts';
import { pin, toolPinStoreContract } from './tool-pin-store.contract.ts';

let server: SharedPostgres;
let databases = 0;
beforeAll(() => {
  server = sharedPostgres();
});
afterAll(async () => {
  await server?.drop();
});

toolPinStoreContract('PostgreSQL', async () => {
  const url = await server.database(`pins${++databases}`);
  const store = await openPgStore(url);
  return {
    pins: store.toolPins,
    async reopen() {
      const again = await openPgStore(url);
      return { pins: again.toolPins, close: () => again.close() };
    },
    dispose: () => store.close(),
  };
});

it('tells the other instances when a pin changes', async () => {
  const url = await server.database(`pins${++databases}`);
  const one = await openPgStore(url);
  const two = await openPgStore(url);
  try {
    const heard = new Promise<void>((resolve) => two.toolPins.onChange(resolve));
    await one.toolPins.put([pin('fs', 'write', 'w2')]);
    await heard;
    expect((await two.toolPins.load()).pins).toEqual([pin('fs', 'write', 'w2')]);
  } finally {
    await one.close();
    await two.close();
  }
});
