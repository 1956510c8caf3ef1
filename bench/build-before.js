// A build of an earlier commit of this checkout, for benchmarks that measure it side by side with
// the current one: its tree exported into a temporary directory (git archive), this checkout's
// node_modules linked in, and its own `npm run build` run there. remove() deletes it all.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Builds `commit` of the git checkout at `root` in a fresh temporary directory; resolves with
 * `{dir, remove}` (`dir/bin/codemux.js` is its CLI). Throws, saying how to pass a build instead,
 * when `root` is not a git checkout holding the commit.
 */
export function buildCommit(root, commit) {
  try {
    execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: root, stdio: 'ignore' });
  } catch {
    throw new Error(
      `${root} is not a git checkout holding ${commit}: build that commit yourself and pass its directory with --baseline DIR (or CODEMUX_BENCH_BASELINE)`,
    );
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `codemux-before-${commit}-`));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    const tar = path.join(dir, 'tree.tar');
    execFileSync('git', ['archive', '--output', tar, commit], { cwd: root });
    execFileSync('tar', ['-xf', tar, '-C', dir]);
    fs.rmSync(tar);
    fs.symlinkSync(
      fs.realpathSync(path.join(root, 'node_modules')),
      path.join(dir, 'node_modules'),
    );
    execFileSync('npm', ['run', 'build'], { cwd: dir, stdio: 'ignore' });
  } catch (error) {
    remove();
    throw error;
  }
  return { dir, remove };
}
