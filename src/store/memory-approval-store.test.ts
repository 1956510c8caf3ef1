import { approvalStoreContract } from './approval-store.contract.ts';
import { memoryApprovalStore } from './memory-approval-store.ts';

approvalStoreContract('memory', async () => ({
  approvals: memoryApprovalStore(),
  async dispose() {},
}));
