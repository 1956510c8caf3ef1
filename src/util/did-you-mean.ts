/** @module "Did you mean": the nearest known names to a misspelled one (edit distance, `-`/`_` alike). */

/** Levenshtein distance between `a` and `b` (insert, delete, substitute cost 1). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Case, `-` and `_` are not differences a user means. */
function normalize(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, '_');
}

/** The known names closest to `name` (at most `limit`), only those within a third of its length. */
export function nearestNames(name: string, known: Iterable<string>, limit = 1): string[] {
  const wanted = normalize(name);
  const budget = Math.max(2, Math.floor(wanted.length / 3));
  const scored: Array<{ name: string; distance: number }> = [];
  for (const candidate of known) {
    const distance = editDistance(wanted, normalize(candidate));
    if (distance <= budget) scored.push({ name: candidate, distance });
  }
  scored.sort((x, y) => x.distance - y.distance || x.name.localeCompare(y.name));
  return scored.slice(0, limit).map((s) => s.name);
}

/** `; did you mean \`x\`?` (or `` `x` or `y` ``), or "" when nothing is near. */
export function didYouMean(name: string, known: Iterable<string>, limit = 1): string {
  const near = nearestNames(name, known, limit);
  if (near.length === 0) return '';
  return `; did you mean ${near.map((n) => `\`${n}\``).join(' or ')}?`;
}
