/** The most of `starts` (times in ms) that fall within any window of `windowMs`: what a sliding-window quota sees. */
export function maxInWindow(starts: number[], windowMs: number): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let max = 0;
  for (let first = 0, last = 0; last < sorted.length; last++) {
    while (sorted[last]! - sorted[first]! >= windowMs) first++;
    max = Math.max(max, last - first + 1);
  }
  return max;
}
