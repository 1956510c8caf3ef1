// Writer thread entry when codemux runs from its TypeScript sources (tests): load the worker through tsx.
import { register } from 'tsx/esm/api';

register();
await import('./activity-writer-worker.ts');
