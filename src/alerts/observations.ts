import type { Dataset } from '../datasets.ts';
import type { ChangeObservation, ChangeRule, HealthObservation } from './conditions.ts';
import type { PositionEventRule } from './rules.ts';
import type { Queryable } from './store.ts';
import type { PositionRow } from './transitions.ts';

/**
 * What the rules read, through the data contract's views (docs/schema.md), along the tables' keys. A
 * change rule's reference is the last value at or before one window before the newest, and no older
 * than two windows (a gap in the data is not a move).
 */

type PortfolioValue = { value: string | null; at: Date | null };

/** The portfolio value as latest_portfolio computes it, from the refreshes at or before `asOf`. */
async function portfolioValueAsOf(sql: Queryable, address: string, asOf: Date | null): Promise<PortfolioValue> {
  const limit = sql`coalesce(${asOf}::timestamptz, 'infinity')`;
  const [row] = await sql<PortfolioValue[]>`
    select case when pr.snapshot_at is null and nr.snapshot_at is null then null
                else (coalesce(pr.net_value, 0) + coalesce(nr.value_usd, 0))::text end as value,
           greatest(pr.snapshot_at, nr.snapshot_at) as at
    from (select 1) one
    left join lateral (
      select snapshot_at, net_value from position_refresh_values where owner = ${address} and snapshot_at <= ${limit}
      order by snapshot_at desc limit 1
    ) pr on true
    left join lateral (
      select snapshot_at, value_usd from nft_refresh_values where owner = ${address} and snapshot_at <= ${limit}
      order by snapshot_at desc limit 1
    ) nr on true`;
  return row ?? { value: null, at: null };
}

/** A price, portfolio or floor change rule's newest value and its reference. */
export async function observeChange(sql: Queryable, rule: ChangeRule): Promise<ChangeObservation | undefined> {
  if (rule.kind === 'portfolio_change') return observePortfolio(sql, rule.address, rule.windowMs);
  const window = `${rule.windowMs} milliseconds`;
  const twoWindows = `${2 * rule.windowMs} milliseconds`;
  if (rule.kind === 'price_change') {
    // The newest price from latest_token_prices, one step down the key. Sorting token_prices for it
    // read the token's whole history at each evaluation: 29 ms after 5 days of minutes, growing.
    const [row] = await sql<ChangeObservation[]>`
      select l.symbol, l.price::text as value, l.price_time as at, r.price::text as "refValue", r.price_time as "refAt"
      from latest_token_prices l
      left join lateral (
        select price, price_time from token_prices
        where coin_type = ${rule.token} and chain = 'sui'
          and price_time <= l.price_time - ${window}::interval
          and price_time >= l.price_time - ${twoWindows}::interval
        order by price_time desc limit 1
      ) r on true
      where l.coin_type = ${rule.token} and l.chain = 'sui'`;
    return row;
  }
  const [row] = await sql<ChangeObservation[]>`
    select c.name, c.native_token_symbol as "nativeSymbol", l.floor_price::text as value, l.snapshot_at as at,
           r.floor_price::text as "refValue", r.snapshot_at as "refAt"
    from (
      select floor_price, snapshot_at from nft_holding_snapshots
      where collection_id = ${rule.collection} and floor_price is not null
      order by snapshot_at desc limit 1
    ) l
    left join nft_collections c on c.collection_id = ${rule.collection}
    left join lateral (
      select floor_price, snapshot_at from nft_holding_snapshots
      where collection_id = ${rule.collection} and floor_price is not null
        and snapshot_at <= l.snapshot_at - ${window}::interval
        and snapshot_at >= l.snapshot_at - ${twoWindows}::interval
      order by snapshot_at desc limit 1
    ) r on true`;
  return row;
}

export async function observePortfolio(
  sql: Queryable,
  address: string,
  windowMs: number,
): Promise<ChangeObservation | undefined> {
  const latest = await portfolioValueAsOf(sql, address, null);
  if (latest.value === null || latest.at === null) return undefined;
  const ref = await portfolioValueAsOf(sql, address, new Date(latest.at.getTime() - windowMs));
  const inWindow = ref.at !== null && ref.at.getTime() >= latest.at.getTime() - 2 * windowMs;
  return {
    value: latest.value,
    at: latest.at,
    refValue: inWindow ? ref.value : null,
    refAt: inWindow ? ref.at : null,
  };
}

/** The positions of the address's latest positions refresh that have a health factor (position_pnl.health_factor). */
export function observeHealth(sql: Queryable, address: string): Promise<HealthObservation[]> {
  return sql<HealthObservation[]>`
    select p.owner, p.position_id as "positionId", p.type, p.protocol_id as "protocolId",
           p.snapshot_at as "snapshotAt", p.health_factor::text as "healthFactor"
    from (select snapshot_at from position_refreshes where owner = ${address} order by snapshot_at desc limit 1) r
    join position_pnl p on p.owner = ${address} and p.snapshot_at = r.snapshot_at
    where p.health_factor is not null
    order by p.position_id`;
}

/** The newest successful tick of a dataset (null: it never succeeded). */
export async function observeFreshness(sql: Queryable, dataset: Dataset): Promise<Date | null> {
  const [row] = await sql<{ newestTick: Date | null }[]>`
    select max(last_success_tick) as "newestTick" from dataset_freshness where dataset = ${dataset}`;
  return row?.newestTick ?? null;
}

/** The tick of the address's latest positions refresh (null: never refreshed). */
export async function observeLatestRefresh(sql: Queryable, address: string): Promise<Date | null> {
  const [row] = await sql<{ at: Date | null }[]>`
    select max(snapshot_at) as at from position_refreshes where owner = ${address}`;
  return row?.at ?? null;
}

/** The rule's address's positions opened (first seen) or closed after `since`. */
export function observePositionChanges(sql: Queryable, rule: PositionEventRule, since: Date): Promise<PositionRow[]> {
  const after = rule.kind === 'position_opened' ? sql`first_seen_at > ${since}` : sql`closed_at > ${since}`;
  return sql<PositionRow[]>`
    select owner, position_id as "positionId", parent_position_id as "parentPositionId", type, chain,
           protocol_id as "protocolId", first_seen_at as "firstSeenAt", closed_at as "closedAt"
    from positions
    where owner = ${rule.address} and ${after}
    order by position_id`;
}
