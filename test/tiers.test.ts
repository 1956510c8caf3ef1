/**
 * The test tiers (test/setup/tiers.ts) as Vitest sees them: every test file runs in exactly one
 * project, so a new file is never silently skipped nor run twice, and no `unit` file starts a
 * process or a port.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createVitest } from 'vitest/node';
import { ROOT } from './helpers.ts';

/** Every *.test.ts under src/ and test/, relative to the root. */
function testFiles(): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(file);
      else if (entry.name.endsWith('.test.ts')) found.push(file);
    }
  };
  visit('src');
  visit('test');
  return found.sort();
}

/** Each test file with the names of the projects that run it, as Vitest globs them. */
async function projectsByFile(): Promise<Map<string, string[]>> {
  const vitest = await createVitest('test', {
    watch: false,
    config: 'vitest.config.ts',
    root: ROOT,
  });
  try {
    const byFile = new Map<string, string[]>();
    for (const spec of await vitest.globTestSpecifications()) {
      const file = path.relative(ROOT, spec.moduleId);
      byFile.set(file, [...(byFile.get(file) ?? []), spec.project.name]);
    }
    return byFile;
  } finally {
    await vitest.close();
  }
}

/** What starts a process or a port: fixture upstreams, child_process, a listening server, PostgreSQL. */
const STARTS_SOMETHING =
  /node:child_process|\.listen\(|http-servers|SERVERS\.|FIXTURE_SERVER|process\.execPath|postgres\.ts|playwright-core/;

describe('the test tiers', () => {
  it('run every test file in exactly one project', async () => {
    const byFile = await projectsByFile();
    const misplaced = testFiles()
      .map((file) => ({ file, projects: byFile.get(file) ?? [] }))
      .filter(({ projects }) => projects.length !== 1);
    expect(misplaced, 'add each file to one tier in test/setup/tiers.ts').toEqual([]);
  }, 20_000);

  it('keep processes and ports out of the unit tier', async () => {
    const byFile = await projectsByFile();
    const unit = [...byFile].filter(([, projects]) => projects.includes('unit'));
    expect(unit.length).toBeGreaterThan(40);
    const starting = unit
      .map(([file]) => file)
      .filter((file) => file !== 'test/tiers.test.ts')
      .filter((file) => STARTS_SOMETHING.test(fs.readFileSync(path.join(ROOT, file), 'utf8')));
    expect(starting, 'move them to the gateway tier in test/setup/tiers.ts').toEqual([]);
  }, 20_000);
});
