import { memoryRunJournalStore } from './memory-run-journal-store.ts';
import { runJournalStoreContract } from './run-journal-store.contract.ts';

runJournalStoreContract('memory', async (limits) => {
  const journals = memoryRunJournalStore(limits);
  // Instances in one process share the one store.
  return { journals, another: async () => journals, async dispose() {} };
});
