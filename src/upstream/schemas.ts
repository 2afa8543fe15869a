import { z } from 'zod';

/** Where a zod issue points, as `data[3].fee.value` ('' for the value itself). */
export function issuePath(path: readonly PropertyKey[]): string {
  return path
    .map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`))
    .join('')
    .replace(/^\./, '');
}

/**
 * Wire schemas of the upstream responses (upstream-api.md section 2), read as leniently as the
 * document allows (design.md, 'Unknowns'): unknown fields are kept (loose objects) so that
 * normalizers can store them in jsonb. An answer whose envelope cannot be read is quarantined whole;
 * an element that cannot be read, alone.
 */

/** A JSON number, or a string holding a decimal number ("1234.5", "1e-9"). */
export const numericValue = z.union([
  z.number().refine(Number.isFinite, 'must be a finite number'),
  z
    .string()
    .trim()
    .regex(/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/, 'must be a decimal number'),
]);
export type NumericValue = z.infer<typeof numericValue>;

const optionalString = z.string().nullish();
/** Identifiers documented as strings; numbers are accepted and read as their decimal spelling. */
const identifier = z.union([z.string().min(1), z.number()]).transform(String);

/**
 * Each element of an answer (a price entry, a position, an NFT group) is validated on its own by the
 * normalizer (src/normalize/answer-elements.ts): the answers' schemas below check only the envelope,
 * so that one element that cannot be read costs only itself. The element schemas check only what
 * makes an element readable at all (its identity); every other field is read by the normalizer,
 * which absorbs type drift (numbers as strings or `{ value }`) and keeps what it cannot map.
 */
const elementList = z
  .array(z.unknown())
  .nullish()
  .transform((data) => data ?? []);

export const tokenPriceEntry = z.looseObject({
  contract_address: z.string().min(1),
  /** A number, a numeric string or `{ value }`; null when the upstream has no price for the time. */
  price: z.unknown(),
  /** Unit (s, ms, µs) not documented: decided by magnitude when normalized. */
  timestamp: z.unknown(),
});
export type TokenPriceEntry = z.infer<typeof tokenPriceEntry>;

export const tokenPriceResponse = z.looseObject({ data: elementList });
export type TokenPriceResponse = z.infer<typeof tokenPriceResponse>;

/** One of the nine undocumented position variants: its identity validated, the rest read by the normalizer. */
export const position = z.looseObject({
  positionId: identifier,
  chain: z.string().min(1),
  type: z.string().min(1),
});
export type Position = z.infer<typeof position>;

export const positionsResponse = z.looseObject({ data: elementList });
export type PositionsResponse = z.infer<typeof positionsResponse>;

export const protocolRef = z.looseObject({
  name: optionalString,
  logo: optionalString,
  url: optionalString,
  protocol: z.union([z.string(), z.number()]).nullish(),
});

export const nativeToken = z.looseObject({
  name: optionalString,
  cmcId: z.union([z.number(), z.string()]).nullish(),
  cmc_slug: optionalString,
  cgId: optionalString,
  symbol: optionalString,
  /** An integer in any shape: read by the normalizer. */
  decimals: z.unknown().optional(),
});

export const nftCollection = z.looseObject({
  description: optionalString,
  externalUrl: optionalString,
  id: z.union([z.string(), z.number()]).nullish(),
  imageUrl: optionalString,
  name: optionalString,
  /** An integer in any shape: read by the normalizer. */
  totalItems: z.unknown().optional(),
  chain: optionalString,
  verified: z.boolean().nullish(),
  scam: z.boolean().nullish(),
});

/** A token's id is validated; its other documented fields (listed in the document's order) are read by the normalizer. */
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

/** Documented as a top-level array; the service's own client reads `{ data: [...] }`: both accepted. */
export const nftHoldingsResponse = z
  .union([z.array(z.unknown()), z.looseObject({ data: elementList })])
  .transform((body) => (Array.isArray(body) ? body : body.data));
export type NftHoldingsResponse = z.infer<typeof nftHoldingsResponse>;

/** Shape not documented: an array (or `{ data: [...] }`) of protocol ids or protocol objects. */
export const protocolEntry = z.union([
  z.string().min(1),
  z.looseObject({
    id: z.union([z.string(), z.number()]).nullish(),
    protocol: z.union([z.string(), z.number()]).nullish(),
    protocolId: z.union([z.string(), z.number()]).nullish(),
    name: optionalString,
    logo: optionalString,
    url: optionalString,
  }),
]);
export const protocolsResponse = z
  .union([z.array(protocolEntry), z.looseObject({ data: z.array(protocolEntry).nullish() })])
  .transform((body) => (Array.isArray(body) ? body : (body.data ?? [])));
export type ProtocolsResponse = z.infer<typeof protocolsResponse>;
