import { z } from 'zod';

/**
 * Wire schemas of the upstream responses (upstream-api.md section 2), read as leniently as the
 * document allows (design.md, 'Unknowns'): numbers may come as numeric strings, `token` as a string
 * or an object, arrays may be missing or null, and unknown fields are kept (loose objects) so that
 * normalizers can store them in jsonb. What cannot be read at all fails validation and is quarantined.
 */

/** A JSON number, or a string holding a decimal number ("1234.5", "1e-9"). */
export const numericValue = z.union([
  z.number().refine(Number.isFinite, 'must be a finite number'),
  z.string().trim().regex(/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/, 'must be a decimal number'),
]);
export type NumericValue = z.infer<typeof numericValue>;

const optionalNumeric = numericValue.nullish();
const optionalString = z.string().nullish();
/** Identifiers documented as strings; numbers are accepted and read as their decimal spelling. */
const identifier = z.union([z.string().min(1), z.number()]).transform(String);

export const tokenPriceEntry = z.looseObject({
  contract_address: z.string().min(1),
  symbol: optionalString,
  /** null when the upstream knows the token but has no price for the requested time. */
  price: numericValue.nullable(),
  last24hPrice: optionalNumeric,
  /** Unit (s, ms, µs) not documented: decided by magnitude when normalized. */
  timestamp: numericValue,
  decimals: z.union([z.number().int(), z.string().regex(/^\d+$/)]).nullish(),
  source: optionalString,
});
export type TokenPriceEntry = z.infer<typeof tokenPriceEntry>;

export const tokenPriceResponse = z.looseObject({
  data: z.array(tokenPriceEntry).nullish().transform((data) => data ?? []),
});
export type TokenPriceResponse = z.infer<typeof tokenPriceResponse>;

export const amountEntry = z.looseObject({
  amount: optionalNumeric,
  value: optionalNumeric,
  token: z.union([z.string(), z.looseObject({})]).nullish(),
});
export type AmountEntry = z.infer<typeof amountEntry>;

const amountList = z.array(amountEntry).nullish().transform((entries) => entries ?? []);

export const farmingEntry = z.looseObject({
  base_apr: optionalNumeric,
  rewards_apr: optionalNumeric,
  total_apr: optionalNumeric,
  total_apy: optionalNumeric,
  /** Shape not documented: an array of amount entries, an object or a number; kept as jsonb. */
  rewards: z.unknown().optional(),
});
export type FarmingEntry = z.infer<typeof farmingEntry>;

export const protocolRef = z.looseObject({
  name: optionalString,
  logo: optionalString,
  url: optionalString,
  protocol: z.union([z.string(), z.number()]).nullish(),
});

/** One of the nine undocumented position variants: common fields validated, the rest kept. */
export const position = z.looseObject({
  positionId: identifier,
  owner: optionalString,
  input: amountList,
  yieldCollected: amountList,
  current: z
    .looseObject({ tokens: amountList, yield: amountList })
    .nullish(),
  fee: optionalNumeric,
  chain: z.string().min(1),
  type: z.string().min(1),
  farming: z.array(farmingEntry).nullish().transform((entries) => entries ?? []),
  meta: z.looseObject({ protocol: protocolRef.nullish() }).nullish(),
});
export type Position = z.infer<typeof position>;

export const positionsResponse = z.looseObject({
  data: z.array(position).nullish().transform((data) => data ?? []),
});
export type PositionsResponse = z.infer<typeof positionsResponse>;

export const nativeToken = z.looseObject({
  name: optionalString,
  cmcId: z.union([z.number(), z.string()]).nullish(),
  cmc_slug: optionalString,
  cgId: optionalString,
  symbol: optionalString,
  decimals: z.union([z.number(), z.string()]).nullish(),
});

export const nftCollection = z.looseObject({
  description: optionalString,
  externalUrl: optionalString,
  id: z.union([z.string(), z.number()]).nullish(),
  imageUrl: optionalString,
  name: optionalString,
  totalItems: z.union([z.number(), z.string()]).nullish(),
  chain: optionalString,
  verified: z.boolean().nullish(),
  scam: z.boolean().nullish(),
});

export const nftToken = z.looseObject({
  royalty: optionalNumeric,
  imageUrl: optionalString,
  tokenId: identifier,
  contractAddress: optionalString,
  name: optionalString,
  rarityScore: optionalNumeric,
  rank: z.union([z.string(), z.number()]).nullish(),
  price: optionalNumeric,
  cost: optionalNumeric,
});
export type NftToken = z.infer<typeof nftToken>;

export const nftHoldingGroup = z.looseObject({
  owner: optionalString,
  nativeToken: nativeToken.nullish(),
  collection: nftCollection.nullish(),
  collectionId: identifier,
  tokens: z.array(nftToken).nullish().transform((tokens) => tokens ?? []),
  floorPrice: optionalNumeric,
  marketPrice: optionalNumeric,
  /** Absent (or null) when PnL was not requested: stored as null, never zero. */
  profit: z
    .looseObject({ realizedPnL: optionalNumeric, unrealizedPnL: optionalNumeric })
    .nullish(),
});
export type NftHoldingGroup = z.infer<typeof nftHoldingGroup>;

/** Documented as a top-level array; a `{ data: [...] }` wrapper is accepted too. */
export const nftHoldingsResponse = z
  .union([z.array(nftHoldingGroup), z.looseObject({ data: z.array(nftHoldingGroup).nullish() })])
  .transform((body) => (Array.isArray(body) ? body : (body.data ?? [])));
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
