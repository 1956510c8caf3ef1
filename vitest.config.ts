/** @module Vitest: the test suite in four tiers, one project each (test/setup/tiers.ts, docs/testing.md). */
import { configDefaults, defineConfig } from 'vitest/config';
import { TIERS, type Tier } from './test/setup/tiers.ts';

/** A tier's Vitest project: its files (test/setup/tiers.ts) and the shared parts it starts once. */
const project = (name: string, tier: Tier, parts: string[] = []) => ({
  extends: true as const,
  test: {
    name,
    include: tier.include,
    exclude: [...configDefaults.exclude, ...tier.exclude],
    globalSetup: [...(tier.runsDist ? ['test/setup/fresh-dist.ts'] : []), ...parts],
  },
});

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    projects: [
      project('unit', TIERS.unit),
      project('gateway', TIERS.gateway),
      project('pg', TIERS.pg, ['test/setup/postgres.ts']),
      project('browser', TIERS.browser, ['test/setup/chromium.ts']),
    ],
  },
});
