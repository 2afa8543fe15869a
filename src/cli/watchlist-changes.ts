import type { DeclaredAddress, WatchlistChanges } from '../db/stores/watchlist-apply.ts';
import { addressFormatLabel, describeAddressWatch } from '../ops/address-watch.ts';

/** What `chaintap watchlist apply` prints of its changes. */

/** Lines listed per kind of change; the rest are counted. */
const CHANGES_SHOWN = 100;

function watchText(watched: DeclaredAddress): string {
  return `${addressFormatLabel(watched.address)}: ${describeAddressWatch(watched)}`;
}

/** The first CHANGES_SHOWN lines of a kind of change, then how many more. */
function shown<T>(items: T[], line: (item: T) => string): string[] {
  const lines = items.slice(0, CHANGES_SHOWN).map(line);
  if (items.length > CHANGES_SHOWN) lines.push(`  … and ${items.length - CHANGES_SHOWN} more`);
  return lines;
}

/** "tokens: 2 added, 1 removed, 10 unchanged", each change on a line (+ added, ~ updated, - removed). */
export function describeChanges(changes: WatchlistChanges, dryRun: boolean): string[] {
  const { tokens, addresses } = changes;
  const verb = (done: string, would: string) => (dryRun ? would : done);
  return [
    `tokens: ${tokens.added.length} ${verb('added', 'to add')}, ${tokens.removed.length} ${verb('removed', 'to remove')}, ${tokens.unchanged} unchanged`,
    ...shown(tokens.added, (token) => `  + ${token}`),
    ...shown(tokens.removed, (token) => `  - ${token}`),
    `addresses: ${addresses.added.length} ${verb('added', 'to add')}, ${addresses.updated.length} ${verb('updated', 'to update')}, ${addresses.removed.length} ${verb('removed', 'to remove')}, ${addresses.unchanged} unchanged`,
    ...shown(addresses.added, (watched) => `  + ${watched.address} ${watchText(watched)}`),
    ...shown(
      addresses.updated,
      ({ before, after }) => `  ~ ${after.address} ${watchText(after)} (was: ${describeAddressWatch(before)})`,
    ),
    ...shown(addresses.removed, (address) => `  - ${address}`),
    ...(dryRun ? ['dry run: nothing changed'] : []),
  ];
}
