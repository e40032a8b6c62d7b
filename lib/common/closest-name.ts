/**
 * "Did you mean ...?": which known name a misspelt one probably was, for
 * registration errors (handler names, option and definition keys). The one
 * finder both use; each caller says how many edits still count as a typo.
 */

/** Optimal string alignment distance (Damerau-Levenshtein without repeated edits), case-insensitive, capped. */
export function editDistance (a: string, b: string, cap: number): number {
  a = a.toLowerCase()
  b = b.toLowerCase()
  if (Math.abs(a.length - b.length) > cap) return cap + 1
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)]
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min((rows[i - 1] as number[])[j] as number + 1, row[j - 1] as number + 1, (rows[i - 1] as number[])[j - 1] as number + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (rows[i - 2] as number[])[j - 2] as number + 1)
      row.push(best)
    }
    rows.push(row)
  }
  return (rows[a.length] as number[])[b.length] as number
}

/** The candidate closest to `name` within `cap` edits, case-insensitive (the first of equals), if any. */
export function closestName<T extends string> (name: string, candidates: readonly T[], cap = 2): T | undefined {
  let best: T | undefined
  let bestDistance = cap + 1
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate, cap)
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}
