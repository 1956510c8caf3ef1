// Shared by the benchmark scripts: medians, durations as text, and the PASS/MISS table.

/** The median of `values` (unsorted input is fine). */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The `q` quantile of already sorted values. */
export const quantile = (sorted, q) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** Milliseconds as text: microseconds below 1 ms. */
export const fmt = (ms) => (ms < 1 ? `${(ms * 1000).toFixed(1)} us` : `${ms.toFixed(2)} ms`);

/** A table of figures, each beside its baseline and target, with a closing count. */
export function table() {
  const passes = [];
  return {
    row(name, value, baseline, target, pass) {
      passes.push(pass);
      console.log(
        `${pass ? 'PASS' : 'MISS'}  ${name.padEnd(44)} ${value.padEnd(16)} ${baseline.padEnd(44)} target ${target}`,
      );
    },
    done() {
      console.log(`\n${passes.filter(Boolean).length} of ${passes.length} within target`);
    },
  };
}
