/**
 * @module Which test file runs in which tier (a Vitest project, vitest.config.ts): `unit` runs
 * src/ with no process and no port, `gateway` spawns processes or listens (most spawn
 * bin/codemux.js, which runs dist/), `pg` needs PostgreSQL, `browser` drives Chromium.
 * test/tiers.test.ts checks that every test file lands in exactly one tier.
 */

/** Tests in src/ that spawn a process (fixture upstreams, `node --import tsx`, mkfifo) or listen on a port. */
const SRC_WITH_PROCESSES = [
  'src/execution/call-args.test.ts',
  'src/execution/code-tool-run.test.ts',
  'src/execution/guest-trust.test.ts',
  'src/execution/runs/runs.test.ts',
  'src/execution/runs/shared-runs.test.ts',
  'src/execution/service.test.ts',
  'src/scripts/resolve.test.ts',
  'src/store/secret-key.test.ts',
  'src/telemetry/otel-tracing.test.ts',
  'src/upstream/oauth/refresher.test.ts',
  'src/upstream/registry.test.ts',
  'src/upstream/sdk-connection.test.ts',
];

/** Tests under test/ that start nothing: they run with the unit tier. */
const TEST_WITHOUT_PROCESSES = [
  'test/http-loopback.test.ts',
  'test/system-parts.test.ts',
  'test/tiers.test.ts',
];

const PG = ['src/store/pg-*.test.ts', 'test/*cluster*.test.ts', 'test/input-required.test.ts'];
const BROWSER = ['test/dashboard*.test.ts'];

export interface Tier {
  include: string[];
  exclude: string[];
  /** True when its tests spawn bin/codemux.js, which runs dist/ (test/setup/fresh-dist.ts). */
  runsDist: boolean;
}

export const TIERS = {
  unit: {
    include: ['src/**/*.test.ts', ...TEST_WITHOUT_PROCESSES],
    exclude: [...SRC_WITH_PROCESSES, ...PG],
    runsDist: false,
  },
  gateway: {
    include: ['test/**/*.test.ts', ...SRC_WITH_PROCESSES],
    exclude: [...TEST_WITHOUT_PROCESSES, ...PG, ...BROWSER],
    runsDist: true,
  },
  pg: { include: PG, exclude: [], runsDist: true },
  browser: { include: BROWSER, exclude: [], runsDist: true },
} satisfies Record<string, Tier>;

export type TierName = keyof typeof TIERS;
