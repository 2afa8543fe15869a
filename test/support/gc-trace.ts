/**
 * Whether a process's young-generation collections (scavenges) use V8's helper threads: node flags
 * that make V8 print every collection to stdout, JavaScript that makes the main thread collect
 * between two markers, and the count of what it printed between them.
 */

/** A young generation large enough that V8 gives its collections helper threads when it may. */
export const GC_TRACE_FLAGS = ['--trace-gc-nvp', '--max-semi-space-size=16'];

export const ALLOCATING = '-- allocation starts --';
export const ALLOCATED = '-- allocation ends --';

/** Statements that allocate (keeping some of it alive), printing ALLOCATING before and ALLOCATED after. */
export const ALLOCATE = `
  console.log(${JSON.stringify(ALLOCATING)});
  let keep = [];
  for (let round = 0; round < 40; round++) {
    for (let i = 0; i < 2e5; i++) keep.push({ a: i, b: [i] });
    if (keep.length > 6e5) keep = keep.slice(-2e5);
  }
  keep = undefined;
  console.log(${JSON.stringify(ALLOCATED)});
`;

/** The scavenges traced in `output` between the markers, and how many V8's helper threads took part in. */
export function scavengesWhileAllocating(output: string): { total: number; withHelpers: number } {
  const from = output.indexOf(ALLOCATING);
  const to = output.indexOf(ALLOCATED, from);
  if (from < 0 || to < 0) throw new Error(`no allocation markers in the output:\n${output.slice(-2_000)}`);
  const helpers = [...output.slice(from, to).matchAll(/gc=s .*?background\.scavenge\.parallel=([\d.]+)/g)].map(
    (match) => Number(match[1]),
  );
  return { total: helpers.length, withHelpers: helpers.filter((ms) => ms > 0).length };
}
