import type { z } from 'zod';
import type { QuarantinedElement } from '../db/schema/rows.ts';
import { cutJson, storableJson } from '../db/storable-text.ts';
import { issuePath } from '../upstream/schemas.ts';
import { DriftLog } from './schema-drift.ts';
import { UnreadablePayloadError } from './unreadable-payload-error.ts';

/**
 * Reads each element of an answer on its own: `read` gets the element validated by `schema`, with
 * every string storable (db/storable-text.ts: a NUL or a lone surrogate escaped, counted as the
 * drift `<dataset>.*` / `unstorable_text`), a drift log of its own and the element's index, and
 * returns what to keep (a commit function, run only once the element was read whole). An element
 * that fails the schema (its identity cannot be read or cannot be a key), that is nested deeper than
 * Postgres and JSON can take, or whose reading throws UnreadablePayloadError, is quarantined alone
 * (with its index and the reason), its drifts not counted; the others are read. Any other throw is
 * a bug and propagates.
 */
export function readElements<E>(
  dataset: string,
  elements: readonly unknown[],
  schema: z.ZodType<E>,
  drifts: DriftLog,
  read: (element: E, drifts: DriftLog, index: number) => () => void,
): QuarantinedElement[] {
  const quarantined: QuarantinedElement[] = [];
  // As received, cut where it nests too deep to be stringified: the raw answer keeps it whole.
  const quarantine = (index: number, element: unknown, reason: string) => {
    quarantined.push({ index, element: cutJson(element), reason });
  };
  elements.forEach((element, index) => {
    const parsed = schema.safeParse(element);
    if (!parsed.success) {
      quarantine(index, element, describeIssues(element, parsed.error.issues));
      return;
    }
    const storable = storableJson(parsed.data);
    if ('problem' in storable) {
      quarantine(index, element, storable.problem);
      return;
    }
    const own = new DriftLog();
    if (storable.escaped > 0) own.record(`${dataset}.*`, 'unstorable_text');
    let keep: () => void;
    try {
      keep = read(storable.value as E, own, index);
    } catch (error) {
      if (!(error instanceof UnreadablePayloadError)) throw error;
      quarantine(index, element, error.message);
      return;
    }
    keep();
    drifts.add(own);
  });
  return quarantined;
}

/** zod issues as `path: message` ('missing' for a field that is not there), joined with '; '. */
function describeIssues(element: unknown, issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const missing = issue.path.length > 0 && valueAt(element, issue.path) === undefined;
      return `${issuePath(issue.path) || '(element)'}: ${missing ? 'missing' : issue.message}`;
    })
    .join('; ');
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
