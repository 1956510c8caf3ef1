/**
 * @module The order test files start in: the longest first, across all four tiers. Vitest's own
 * order runs the tiers one after another (by name) and the longest file of a tier first, so a
 * long gateway file that starts last keeps one worker busy while the other waits; across tiers
 * the two workers stay busy to the end. A file's length is its duration in Vitest's results
 * cache (node_modules/.vite, written by every run); a file not in the cache (a fresh clone)
 * counts by its size, and ahead of measured ones, as Vitest does.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const weigh = (spec: TestSpecification) => {
      const key = `${spec.project.name}:${relative(config.root, spec.moduleId)}`;
      const run = cache.getFileTestResults(key);
      if (run) return { measured: true, failed: run.failed, weight: run.duration };
      return { measured: false, failed: false, weight: cache.getFileStats(key)?.size ?? 0 };
    };
    const weights = new Map(files.map((spec) => [spec, weigh(spec)]));
    return [...files].sort((a, b) => {
      const wa = weights.get(a)!;
      const wb = weights.get(b)!;
      if (wa.measured !== wb.measured) return wa.measured ? 1 : -1;
      if (wa.failed !== wb.failed) return wa.failed ? -1 : 1;
      return wb.weight - wa.weight;
    });
  }
}
