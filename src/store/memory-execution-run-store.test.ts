import { executionRunStoreContract } from './execution-run-store.contract.ts';
import { memoryExecutionRunStore } from './memory-execution-run-store.ts';

executionRunStoreContract('memory', async () => ({
  runs: memoryExecutionRunStore(),
  async dispose() {},
}));
