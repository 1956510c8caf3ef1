// Build step, the last: writes dist/.build-stamp, the time the build finished. The tiers that
// spawn dist/ compare it with src/ before they run (test/setup/fresh-dist.ts).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
fs.writeFileSync(path.join(root, 'dist', '.build-stamp'), `${new Date().toISOString()}\n`);
