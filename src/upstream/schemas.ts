import { z } from 'zod';
import { keyProblem } from '../db/storable-text.ts';

/** Where a zod issue points, as `data[3].fee.value` ('' for the value itself). */
export function issuePath(path: readonly PropertyKey[]): string {
  return path
    .map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`))
    .join('')
    .replace(/^\./, '');
}

// Wire schemas of the upstream responses (upstream-api.md section 2), read as leniently as the
// document allows (design.md, 'Unknowns'): unknown fields are kept (loose objects) for jsonb.

/** A JSON number, or a string holding a decimal number ("1234.5", "1e-9"). */
export type NumericValue = number | string;

const optionalString = z.string().nullish();
const textOrNumber = z.union([z.string(), z.number()]).nullish();
/** Identifiers documented as strings (a number reads as its spelling); one that cannot be a key fails. */
const identifier = z
  .union([z.string().min(1), z.number()])
  .transform(String)
  .superRefine((id, ctx) => {
    const problem = keyProblem(id);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, input: id });
  });

/**
 * The answers' schemas check only the envelope: each element is validated on its own by the
 * normalizer (normalize/answer-elements.ts), so that one that cannot be read costs only itself. An
 * element schema checks only its identity; the normalizer reads the rest, absorbing type drift.
 */
const elementList = z.array(z.unknown(), {
  error: (issue) =>
    `${issue.input === undefined ? 'missing' : `${describeShape(issue.input)}, not a list`}: the answer holds no list`,
});

/**
 * The envelope of an answer: its `data` list, and no `error`. Only a list says what a target holds;
 * an answer without one (`{"error": ...}` with status 200, `{"data": null}`), or with an error beside
 * it, fails the envelope: it is quarantined whole and closes, releases and changes nothing.
 */
const answerEnvelope = z.looseObject(
  {
    data: elementList,
    error: z
      .unknown()
      .refine((error) => error === undefined || error === null || error === false || error === '', {
        error: (issue) => `the answer reports an error: ${JSON.stringify(issue.input)?.slice(0, 200)}`,
      })
      .optional(),
  },
  { error: (issue) => `${describeShape(issue.input)}, not an object with a "data" list` },
);

/** How a value that is not what was expected looks, for a reason: `null`, `a string`, `an object`. */
function describeShape(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export const tokenPriceEntry = z.looseObject({
  contract_address: z.string().min(1),
  /** A number, a numeric string or `{ value }`; null when the upstream has no price for the time. */
  price: z.unknown(),
  /** Unit (s, ms, µs) not documented: decided by magnitude when normalized. */
  timestamp: z.unknown(),
});
export type TokenPriceEntry = z.infer<typeof tokenPriceEntry>;

export const tokenPriceResponse = answerEnvelope;
export type TokenPriceResponse = z.infer<typeof tokenPriceResponse>;

/** One of the nine undocumented position variants: its identity validated, the rest read by the normalizer. */
export const position = z.looseObject({
  positionId: identifier,
  chain: z.string().min(1),
  type: z.string().min(1),
});
export type Position = z.infer<typeof position>;

export const positionsResponse = answerEnvelope;
export type PositionsResponse = z.infer<typeof positionsResponse>;

export const protocolRef = z.looseObject({
  name: optionalString,
  logo: optionalString,
  url: optionalString,
  protocol: textOrNumber,
});

export const nativeToken = z.looseObject({
  name: optionalString,
  cmcId: textOrNumber,
  cmc_slug: optionalString,
  cgId: optionalString,
  symbol: optionalString,
  /** An integer in any shape: read by the normalizer. */
  decimals: z.unknown().optional(),
});

export const nftCollection = z.looseObject({
  description: optionalString,
  externalUrl: optionalString,
  id: textOrNumber,
  imageUrl: optionalString,
  name: optionalString,
  /** An integer in any shape: read by the normalizer. */
  totalItems: z.unknown().optional(),
  chain: optionalString,
  verified: z.boolean().nullish(),
  scam: z.boolean().nullish(),
});

/** A token's id is validated; its other documented fields (in the document's order) are read by the normalizer. */
export const nftToken = z.looseObject({
  royalty: z.unknown().optional(),
  imageUrl: z.unknown().optional(),
  tokenId: identifier,
  contractAddress: z.unknown().optional(),
  name: z.unknown().optional(),
  rarityScore: z.unknown().optional(),
  rank: z.unknown().optional(),
  price: z.unknown().optional(),
  cost: z.unknown().optional(),
});
export type NftToken = z.infer<typeof nftToken>;

/** An NFT group: its collection id and its tokens' ids validated, the rest read by the normalizer. */
export const nftHoldingGroup = z.looseObject({
  owner: z.unknown().optional(),
  nativeToken: z.unknown().optional(),
  collection: z.unknown().optional(),
  collectionId: identifier,
  tokens: z
    .array(nftToken)
    .nullish()
    .transform((tokens) => tokens ?? []),
  floorPrice: z.unknown().optional(),
  marketPrice: z.unknown().optional(),
  profit: z.unknown().optional(),
});
export type NftHoldingGroup = z.infer<typeof nftHoldingGroup>;

/**
 * Documented as a top-level array; the service's own client reads `{ data: [...] }`: both accepted,
 * the second as every other answer's envelope (a missing or null list, or an error, fails it).
 */
export const nftHoldingsResponse = z.unknown().transform((body, ctx): unknown[] => {
  if (Array.isArray(body)) return body;
  const envelope = answerEnvelope.safeParse(body);
  if (envelope.success) return envelope.data.data;
  for (const { message, path } of envelope.error.issues)
    ctx.addIssue({
      code: 'custom',
      message: path.length ? message : `${describeShape(body)}, not a list`,
      path,
      input: body,
    });
  return z.NEVER;
});
export type NftHoldingsResponse = z.infer<typeof nftHoldingsResponse>;

/** Shape not documented: an array (or `{ data: [...] }`) of protocol ids or protocol objects. */
const protocolEntry = z.union([z.string().min(1), protocolRef.extend({ id: textOrNumber, protocolId: textOrNumber })]);
export const protocolsResponse = z
  .union([z.array(protocolEntry), z.looseObject({ data: z.array(protocolEntry).nullish() })])
  .transform((body) => (Array.isArray(body) ? body : (body.data ?? [])));
export type ProtocolsResponse = z.infer<typeof protocolsResponse>;
