/**
 * What the suite needs from the system: a missing part fails with one line saying how to
 * install it, and the README's Testing section and `.ci/run` name the same parts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers.ts';
import { partValue, startPart } from './setup/provided.ts';
import {
  CHROMIUM,
  chromiumPath,
  POSTGRES_ROOT,
  PROMETHEUS,
  postgresBinDir,
  prometheusPath,
} from './system-parts.ts';

/** The error `fn` throws. */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('it did not throw');
}

describe('a missing system part', () => {
  it('fails the test with one line saying how to install Chromium', () => {
    const error = thrown(() => chromiumPath('/nonexistent/chromium'));
    expect(error.message).toBe(
      'Chromium not found at /nonexistent/chromium: install it with `apt-get install -y chromium` (see README, Testing)',
    );
    expect(error.stack).toBe(error.message);
  });

  it('fails the test with one line saying how to install Prometheus', () => {
    const error = thrown(() => prometheusPath('/nonexistent/prometheus'));
    expect(error.message).toBe(
      'Prometheus not found at /nonexistent/prometheus: install it with `apt-get install -y prometheus` (see README, Testing)',
    );
    expect(error.stack).toBe(error.message);
  });

  it("fails the test with one line saying how to install PostgreSQL's initdb", () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-no-pg-'));
    try {
      const error = thrown(() => postgresBinDir(empty));
      expect(error.message).toBe(
        `PostgreSQL's initdb not found under ${empty}/*/bin: install it with \`apt-get install -y postgresql\` (see README, Testing)`,
      );
      expect(error.stack).toBe(error.message);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('a shared part that could not start (test/setup/*.ts)', () => {
  it('fails each file of its tier with the same one line', async () => {
    const part = await startPart(async () => chromiumPath('/nonexistent/chromium'));
    const error = thrown(() => partValue(part, 'The shared Chromium'));
    expect(error.message).toBe(
      'Chromium not found at /nonexistent/chromium: install it with `apt-get install -y chromium` (see README, Testing)',
    );
    expect(error.stack).toBe(error.message);
  });

  it('hands over what it started', async () => {
    expect(partValue(await startPart(async () => 5432), 'PostgreSQL')).toBe(5432);
  });
});

describe('the README and .ci/run', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const testing = /^### Testing\n([\s\S]*?)(?=^#)/m.exec(readme)?.[1] ?? '';
  const ci = fs.readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8');

  it('name the same system parts, where the tests look for them', () => {
    expect(testing, 'README has a "### Testing" section').not.toBe('');
    for (const text of [testing, ci]) {
      expect(text).toContain(CHROMIUM);
      expect(text).toContain(`${POSTGRES_ROOT}/*/bin/initdb`);
      expect(text).toContain(PROMETHEUS);
    }
    expect(testing).toContain('apt-get install -y chromium postgresql prometheus');
    expect(ci).toMatch(
      /missing\+=\(chromium\)[\s\S]*missing\+=\(postgresql\)[\s\S]*missing\+=\(prometheus\)/,
    );
  });
});
