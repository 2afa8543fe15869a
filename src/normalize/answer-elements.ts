import type { z } from 'zod';
import type { QuarantinedElement } from '../db/schema/rows.ts';
import { issuePath } from '../upstream/schemas.ts';
import { DriftLog } from './schema-drift.ts';
import { UnreadablePayloadError } from './unreadable-payload-error.ts';

/**
 * Reads each element of an answer on its own: `read` gets the element validated by `schema`, a
 * drift log of its own and the element's index, and returns what to keep (a commit function, run only once the element
 * was read whole). An element that fails the schema, or whose reading throws
 * UnreadablePayloadError, is quarantined alone (with its index and the reason), its drifts not
 * counted; the others are read. Any other throw is a bug and propagates.
 */
export function readElements<E>(
  elements: readonly unknown[],
  schema: z.ZodType<E>,
  drifts: DriftLog,
  read: (element: E, drifts: DriftLog, index: number) => () => void,
): QuarantinedElement[] {
  const quarantined: QuarantinedElement[] = [];
  elements.forEach((element, index) => {
    const parsed = schema.safeParse(element);
    if (!parsed.success) {
      quarantined.push({ index, element, reason: describeIssues(element, parsed.error.issues) });
      return;
    }
    const own = new DriftLog();
    let keep: () => void;
    try {
      keep = read(parsed.data, own, index);
    } catch (error) {
      if (!(error instanceof UnreadablePayloadError)) throw error;
      quarantined.push({ index, element, reason: error.message });
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
