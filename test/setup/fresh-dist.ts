/**
 * @module Vitest globalSetup for the tiers that spawn bin/codemux.js (it runs dist/): when a
 * build input (src/ outside its tests, the build scripts, the tsconfigs) is newer than
 * dist/.build-stamp, it runs `npm run build` first, so a test never runs stale code. `npm test`
 * builds first, so there this is one walk of src/'s mtimes.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BUILD_STAMP = path.join(ROOT, 'dist', '.build-stamp');
const BUILD_INPUTS = [
  'src',
  'scripts/build-ui.js',
  'scripts/minify-prelude.js',
  'scripts/build-stamp.js',
  'tsconfig.json',
  'tsconfig.build.json',
];

/** Tests and contract suites are not built into dist/: editing them needs no build. */
const notBuilt = (file: string) => /\.(test|contract)\.ts$/.test(file);

/** The newest build input under `ROOT` and its mtime in ms. */
export function newestInput(): { file: string; mtimeMs: number } {
  let newest = { file: '', mtimeMs: 0 };
  const visit = (file: string) => {
    const stat = fs.statSync(file);
    if (stat.isDirectory()) {
      for (const entry of fs.readdirSync(file)) visit(path.join(file, entry));
    } else if (!notBuilt(file) && stat.mtimeMs > newest.mtimeMs) {
      newest = { file, mtimeMs: stat.mtimeMs };
    }
  };
  for (const input of BUILD_INPUTS) visit(path.join(ROOT, input));
  return newest;
}

/** Why dist/ is stale, or undefined when it is as new as its inputs. */
export function staleReason(): string | undefined {
  const built = fs.existsSync(BUILD_STAMP) ? fs.statSync(BUILD_STAMP).mtimeMs : 0;
  const newest = newestInput();
  if (built === 0) return 'dist/ has no build stamp (never built, or the build failed)';
  if (newest.mtimeMs > built)
    return `dist/ is older than src/ (${path.relative(ROOT, newest.file)} changed after the build)`;
  return undefined;
}

export default function setup(): void {
  const reason = staleReason();
  if (!reason) return;
  process.stderr.write(`${reason}: running npm run build\n`);
  try {
    // tsc writes its errors to stdout: both go to stderr, out of the reporter's way.
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
  } catch {
    const error = new Error(`${reason}, and npm run build failed (its errors are above)`);
    error.stack = error.message;
    throw error;
  }
}
