import type { z } from 'zod';
import type { QuarantinedElement } from '../db/schema/rows.ts';
import { cutJson, storableJson } from '../db/storable-text.ts';
import { issuePath } from '../upstream/schemas.ts';
import { DriftLog } from './schema-drift.ts';
import { UnreadablePayloadError } from './unreadable-payload-error.ts';

/**
 * Reads each element of an answer on its own: `read` gets it validated by `schema`, every string
 * storable (an escaped one is the drift `<dataset>.*` / `unstorable_text`), with a drift log of its
 * own, and returns a commit function, run once the element was read whole. An element that fails
 * the schema, nests too deep for Postgres, or throws UnreadablePayloadError is quarantined alone,
 * its drifts not counted. Any other throw is a bug and propagates.
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
