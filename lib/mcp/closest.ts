/** Suggest the closest known name for a mistyped one (Levenshtein distance, case-insensitive). */

function editDistance(a: string, b: string): number {
  const m = a.length, n = b.length;
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = [i];
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
    }
    prev = cur;
  }
  return prev[n];
}

/** `treePath`, `tree-path` and `Tree Path` all read as `tree_path`. */
function normalize(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase().replace(/[-\s]+/g, "_");
}

/** The closest candidate, or `null` when none is reasonably close. */
export function closestName(name: string, candidates: readonly string[]): string | null {
  const needle = normalize(name);
  let best: string | null = null;
  let bestScore = Infinity;
  for (const c of candidates) {
    const score = editDistance(needle, c.toLowerCase());
    if (score < bestScore) {
      bestScore = score;
      best = c;
    }
  }
  if (best === null) return null;
  return bestScore <= Math.max(2, Math.floor(best.length / 2)) ? best : null;
}
