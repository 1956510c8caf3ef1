import { activityStoreContract } from './activity-store.contract.ts';
import { memoryActivityStore } from './memory-activity-store.ts';

activityStoreContract('memory', async () => ({
  activity: memoryActivityStore(),
  async dispose() {},
}));
