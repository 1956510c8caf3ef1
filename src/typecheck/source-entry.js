// Worker entry when codemux runs from its TypeScript sources (tests): load worker.ts through tsx.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
