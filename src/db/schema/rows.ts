import type {
  nftCollections,
  nftHoldingSnapshots,
  nftTokens,
  positionAmounts,
  positionFarming,
  positions,
  positionSnapshots,
  protocols,
  tokenPrices,
} from './index.ts';

/** An insert row with every column present (null rather than missing), as normalizers produce them. */
type Complete<T> = { [K in keyof T]-?: Exclude<T[K], undefined> };

/** The answer a stored price came from: a price request, or a positions or NFT answer that carried it. */
export type PriceOrigin = 'prices' | 'positions' | 'nfts';

/** What one answer says about a token of a chain (the writer keeps token_catalog from it). */
export interface TokenRow {
  coinType: string;
  chain: string;
  symbol: string | null;
  decimals: number | null;
  /** Earliest and latest upstream `timestamp` of the token's entries, priced or not. */
  firstSeenAt: Date;
  lastSeenAt: Date;
  /** Latest `timestamp` of a priced entry; null when every entry had price null. */
  lastPriceTime: Date | null;
}

export type PriceRow = typeof tokenPrices.$inferSelect;

/** The tokens and prices an answer gives: a price answer's, or those harvested from a positions or NFT answer. */
export interface PricePoints {
  tokens: TokenRow[];
  prices: PriceRow[];
}

export interface NormalizedTokenPrices extends PricePoints {
  /** Coin types the upstream answered with price null (known token, no price for that time). */
  missing: string[];
}

export type ProtocolRow = Complete<typeof protocols.$inferInsert>;
export type PositionRow = Complete<Omit<typeof positions.$inferInsert, 'positionKey' | 'snapshotExtra'>>;
/** Rows of the views position_snapshots, position_amounts and position_farming (the writer stores them compactly). */
export type PositionSnapshotRow = typeof positionSnapshots.$inferSelect;
/** Amount and farming rows name their snapshot by position id (the owner and tick are the job's). */
export type PositionAmountRow = Omit<typeof positionAmounts.$inferSelect, 'owner' | 'snapshotAt'>;
export type PositionFarmingRow = Omit<typeof positionFarming.$inferSelect, 'owner' | 'snapshotAt'>;
export type PositionAmountKind = PositionAmountRow['kind'];

export interface NormalizedPositions {
  protocols: ProtocolRow[];
  positions: PositionRow[];
  snapshots: PositionSnapshotRow[];
  amounts: PositionAmountRow[];
  farming: PositionFarmingRow[];
  /** The prices its token objects carry (docs/schema.md, "Prices harvested from other answers"). */
  harvested: PricePoints;
}

export type NftCollectionRow = Complete<typeof nftCollections.$inferInsert>;
export type NftHoldingSnapshotRow = Complete<typeof nftHoldingSnapshots.$inferInsert>;
export type NftTokenRow = Complete<typeof nftTokens.$inferInsert>;

export interface NormalizedNftHoldings {
  collections: NftCollectionRow[];
  holdings: NftHoldingSnapshotRow[];
  tokens: NftTokenRow[];
  /** The native tokens' USD prices its groups carry (`marketPrice`). */
  harvested: PricePoints;
}

/** An element of an answer (a price entry, a position, an NFT group) that cannot be read at all. */
export interface QuarantinedElement {
  /** Its index in the answer's list, and the element as received. */
  index: number;
  element: unknown;
  reason: string;
}

/** A field in another shape than documented (numeric_string, value_object are read), and how often. */
export interface SchemaDrift {
  field: string;
  shape: string;
  count: number;
}

/** What every normalizer reports about an answer besides its rows. */
export interface ElementOutcome {
  /** Elements in the answer. */
  elements: number;
  quarantined: QuarantinedElement[];
  drifts: SchemaDrift[];
}
