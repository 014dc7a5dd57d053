// @ts-check
/**
 * Levenshtein distance, for "did you mean" suggestions.
 * @param {string} a
 * @param {string} b
 * @returns {number}
 */
export function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + cost,
      );
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * The candidates closest to `name`: those within a third of its length in edits, or that contain
 * it (or are contained in it), closest first, at most `limit`.
 * @param {string} name
 * @param {readonly string[]} candidates
 * @param {number} [limit]
 * @returns {string[]}
 */
export function closestNames(name, candidates, limit = 3) {
  const wanted = name.toLowerCase();
  const budget = Math.max(2, Math.ceil(wanted.length / 3));
  return candidates
    .map((c) => {
      const lower = c.toLowerCase();
      const contains = lower.includes(wanted) || wanted.includes(lower);
      return { c, d: editDistance(wanted, lower) - (contains ? budget : 0) };
    })
    .filter((x) => x.d <= budget)
    .sort((x, y) => x.d - y.d || (x.c < y.c ? -1 : 1))
    .slice(0, limit)
    .map((x) => x.c);
}
