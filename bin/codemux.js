#!/usr/bin/env node
// The codemux command: runs the compiled CLI in dist/ (built by `npm install` via the prepare script).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('codemux: dist/ is missing; run `npm install` (or `npm run build`) first\n');
  process.exit(2);
}
await import(entry.href);
