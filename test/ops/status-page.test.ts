import { describe, expect, it } from 'vitest';
import type { StatusPageData } from '../../src/ops/status-page-data.ts';
import { renderStatusPage } from '../../src/ops/status-page.ts';
import { parseUpstreamRate } from '../../src/config/upstream-rate.ts';
import { computeCapacityPlan } from '../../src/scheduler/capacity-plan.ts';

const now = new Date('2024-05-02T12:00:00Z');
const since = new Date('2024-05-01T12:00:00Z');
const SUI = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI';

function capacityPlan(addresses: number, rate: string) {
  return computeCapacityPlan({
    tokens: 2,
    addresses,
    crons: { prices: '* * * * *', positions: '* * * * *', nfts: '* * * * *', maintenance: '30 3 * * *' },
    rate: parseUpstreamRate(rate),
    priority: ['prices', 'positions', 'nfts'],
  });
}

/** A refresh outlook: 150 addresses per dataset, held within their max ages unless `unheld`. */
function refreshOutlook(unheld = false) {
  const dataset = (name: 'positions' | 'nfts', perHour: number) => ({
    dataset: name,
    targets: 150,
    perHour,
    everySlot: false,
    meanDelaySeconds: 420,
    p95DelaySeconds: 1_800,
    overMaxAge: unheld ? 3 : 0,
    nearestMaxAge: [{ target: `0x${'ab'.repeat(32)}`, ageSeconds: 80_000, maxAgeSeconds: 86_400 }],
  });
  return { unheld, datasets: [dataset('positions', 6_000), dataset('nfts', 7)] };
}

type QuotaValue = Extract<StatusPageData['quota'], { ok: true }>['value'];

/** The overloaded watchlist (150 addresses, every cron every minute, 2 requests a second). */
function overloaded(quota: Partial<QuotaValue>): StatusPageData {
  const value: QuotaValue = { plan: capacityPlan(150, '2/s'), superseded: [], refresh: refreshOutlook(), changes: [] };
  return data({ quota: { ok: true, value: { ...value, ...quota } } });
}

function data(overrides: Partial<StatusPageData> = {}): StatusPageData {
  return {
    now,
    since,
    freshness: { ok: true, value: [] },
    queues: { ok: true, value: [] },
    tokens: { ok: true, value: { watched: [], prices: [] } },
    failures: { ok: true, value: [] },
    quarantined: { ok: true, value: [] },
    drifts: { ok: true, value: [] },
    quota: {
      ok: true,
      value: { plan: capacityPlan(1, '40/min'), superseded: [], refresh: refreshOutlook(), changes: [] },
    },
    pause: { ok: true, value: null },
    addresses: {
      ok: true,
      value: { watched: [], series: [], from: new Date(now.getTime() - 7 * 86_400_000), to: now },
    },
    alerts: {
      ok: true,
      value: { counts: { pending: 0, failing: 0, deliveredLastDay: 0, failedLastDay: 0 }, recent: [] },
    },
    replica: undefined,
    ...overrides,
  };
}

describe('renderStatusPage', () => {
  it('lists the schema drifts of the last day', () => {
    const drift = { dataset: 'positions', field: 'positions.fee', shape: 'value_object', count: 7 };
    const page = renderStatusPage(
      data({ drifts: { ok: true, value: [{ ...drift, firstSeenAt: since, lastSeenAt: now }] } }),
    );
    expect(page).toMatch(/<section id="drifts">.*positions\.fee.*value_object.*>7</s);
    expect(renderStatusPage(data())).toContain('Every field came in its documented shape.');
  });

  it('reloads itself every 30 s and runs no script', () => {
    const page = renderStatusPage(data());
    expect(page).toContain('<meta http-equiv="refresh" content="30">');
    expect(page).not.toContain('<script');
  });

  it('escapes every value that comes from the stores', () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const page = renderStatusPage(
      data({
        failures: {
          ok: true,
          value: [
            {
              id: '1',
              dataset: 'positions',
              target: hostile,
              tick: now,
              status: 'failed',
              attempts: 1,
              httpStatus: 500,
              error: hostile,
              startedAt: now,
              finishedAt: now,
            },
          ],
        },
        quarantined: {
          ok: true,
          value: [
            {
              id: '2',
              receivedAt: now,
              dataset: 'nfts',
              endpoint: hostile,
              target: null,
              tick: null,
              httpStatus: 200,
              reason: hostile,
            },
          ],
        },
        tokens: {
          ok: true,
          value: {
            watched: [{ coinType: SUI, symbol: hostile, price: '1', price24hAgo: null, priceTime: now }],
            prices: [],
          },
        },
      }),
    );
    expect(page).not.toContain('<img');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('shows each dataset, including one that never succeeded', () => {
    const page = renderStatusPage(
      data({
        freshness: {
          ok: true,
          value: [
            {
              dataset: 'prices',
              targets: 2,
              newestTick: new Date(now.getTime() - 90_000),
              oldestTick: new Date(now.getTime() - 150_000),
              lastSuccessAt: now,
            },
          ],
        },
      }),
    );
    expect(page).toMatch(/<tr data-dataset="prices">.*1 min 30 s.*2024-05-02 11:58:30 UTC.*2024-05-02 11:57:30 UTC/);
    expect(page).toMatch(/<tr data-dataset="positions">.*no successful run yet/);
    expect(page).toMatch(/<tr data-dataset="nfts">.*no successful run yet/);
  });

  it('keeps the other sections when one store does not answer', () => {
    const page = renderStatusPage(
      data({
        queues: { ok: false, error: 'Redis did not answer within 3000 ms' },
        tokens: {
          ok: true,
          value: {
            watched: [{ coinType: SUI, symbol: 'SUI', price: '1.5', price24hAgo: '1.2', priceTime: now }],
            prices: [{ coinType: SUI, priceTime: now, price: '1.5' }],
          },
        },
      }),
    );
    expect(page).toContain('Unavailable: Redis did not answer within 3000 ms');
    expect(page).toContain('1 section(s) unavailable');
    expect(page).toContain('+25.0 % / 24 h');
    expect(page).toContain('class="series price-line"');
  });

  it('shows a change that rounds to zero as 0.00 %', () => {
    const page = renderStatusPage(
      data({
        tokens: {
          ok: true,
          value: {
            watched: [{ coinType: SUI, symbol: 'SUI', price: '0.99994', price24hAgo: '0.99995', priceTime: now }],
            prices: [],
          },
        },
      }),
    );
    expect(page).toContain('0.00 % / 24 h');
    expect(page).not.toContain('-0.00');
  });

  it('shows the quota and what each dataset needs and gets of it, unmarked when it fits', () => {
    const page = renderStatusPage(data());
    expect(page).toContain('<section id="quota"><h2>Quota</h2>');
    expect(page).toContain('<p class="verdict" data-fits="true">Quota <span class="mono">40/min</span>');
    expect(page).toContain('<span class="pill fits">fits (8% of the quota)</span>');
    expect(page).toMatch(
      /<tr data-quota-dataset="positions">.*<td class="num needed">60<\/td><td class="num granted">60<\/td><td class="cadence">every 1 min<\/td><td class="num superseded">0<\/td>/,
    );
    expect(page).not.toContain('class="over-budget"');
  });

  it('marks an over-budget watchlist: by how much, each dataset at its real cadence, the jobs superseded', () => {
    // The case: 150 addresses, positions and NFTs every minute, 2 requests a second.
    const page = renderStatusPage(
      overloaded({ superseded: [{ dataset: 'positions', superseded: 412 }], refresh: refreshOutlook(true) }),
    );
    expect(page).toContain('<section id="quota" class="over-budget"><h2>Quota: over budget</h2>');
    expect(page).toContain(
      '<p class="error">The quota cannot refresh every address within its max age (chaintap plan).</p>',
    );
    expect(page).toMatch(/<td class="num over-max-age error">3<\/td>/);
    expect(page).toContain('<p class="verdict" data-fits="false">');
    expect(page).toContain(
      '<span class="pill over">over budget: needs 2.5x the quota: positions every 1.3 min at best, nfts never</span>',
    );
    expect(page).toContain('To fit: a quota of at least 6/s, fewer addresses or tokens, or slower crons.');
    expect(page).toMatch(
      /<tr data-quota-dataset="positions">.*<td class="cadence short">every 1.3 min at best<\/td><td class="num superseded">412<\/td>/,
    );
    expect(page).toMatch(
      /<tr data-quota-dataset="nfts">.*<td class="num granted">0<\/td><td class="cadence never">never \(the quota is used up by prices and positions\)<\/td>/,
    );
  });

  it('a watchlist refreshed by change rate within its max ages is not over budget, and says what it buys', () => {
    const page = renderStatusPage(
      overloaded({ changes: [{ dataset: 'positions', changes: 37, meanDelaySeconds: 300 }] }),
    );
    expect(page).toContain('<section id="quota"><h2>Quota</h2>');
    expect(page).toContain(
      '<span class="pill fits">refreshed by change rate, every address within its max age</span> <span class="muted">Every address every slot: over budget: needs 2.5x the quota',
    );
    expect(page).toMatch(
      /<tr data-refresh-dataset="positions"><td>positions<\/td><td class="num">150<\/td><td class="num budget">6,000<\/td><td class="num expected">7 min \/ 30 min<\/td><td class="num measured">37, 5 min<\/td><td class="num over-max-age">0<\/td><td><div class="mono" title="0xabab[ab]+">0xabababab… 22 h 13 min of 1 d 0 h<\/div><\/td><\/tr>/,
    );
    expect(page).not.toContain('cannot refresh every address within its max age');
  });

  it('counts an unreadable quota among the unavailable sections', () => {
    const page = renderStatusPage(data({ quota: { ok: false, error: 'Postgres did not answer within 3000 ms' } }));
    expect(page).toMatch(/<section id="quota"><h2>Quota<\/h2><p class="error">Unavailable: Postgres did not answer/);
    expect(page).toContain('1 section(s) unavailable');
  });

  it('shows a pause of the upstream requests in force, with its end and reason, in the framed quota section', () => {
    const until = new Date(now.getTime() + 14 * 60_000 + 5_000);
    const reason = 'HTTP 429 (positions): Retry-After 86,400 s, capped at 900 s (UPSTREAM_MAX_PAUSE_MS)';
    const page = renderStatusPage(data({ pause: { ok: true, value: { until, reason } } }));
    expect(page).toContain('<section id="quota" class="over-budget"><h2>Quota: requests paused</h2>');
    expect(page).toContain(
      `<p class="error paused" data-paused-until="${until.toISOString()}">Upstream requests paused until ${until.toISOString().slice(0, 19).replace('T', ' ')} UTC (14 min 5 s from now): ${reason}</p>`,
    );
    expect(renderStatusPage(data())).not.toContain('paused');
  });

  it('puts the token on its links only when given one', () => {
    expect(renderStatusPage(data(), { token: 'a b&c' })).toContain('href="/queues?token=a%20b%26c"');
    expect(renderStatusPage(data())).toContain('href="/queues"');
  });
});

describe('renderStatusPage: watched addresses', () => {
  const address = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
  const idle = '0xd8da6bf26964af9d7eed9e03e53415d37aa96045';
  const from = new Date(now.getTime() - 7 * 86_400_000);
  const point = (hoursBeforeNow: number, total: string | null) => ({
    owner: address,
    time: new Date(now.getTime() - hoursBeforeNow * 3600_000),
    positionsValue: total,
    positionsAssetValue: total,
    positionsDebtValue: total === null ? null : '0',
    nftValueUsd: total === null ? null : '0',
    totalValue: total,
    pnl: null,
    positionsSnapshotAt: total === null ? null : from,
    nftSnapshotAt: total === null ? null : from,
  });
  const addresses = {
    ok: true as const,
    value: {
      watched: [
        {
          address,
          datasets: ['positions' as const, 'nfts' as const],
          chain: null,
          nftChain: 'ALL',
          positionsValue: '1234.004999',
          positionsAssetValue: '9234.004999',
          positionsDebtValue: '8000',
          nftValue: '0.125',
          totalValue: '1234.129999',
          positionsSnapshotAt: new Date(now.getTime() - 900_000),
          nftSnapshotAt: new Date(now.getTime() - 3_600_000),
        },
        {
          address: idle,
          datasets: ['nfts' as const],
          chain: null,
          nftChain: 'ETH',
          positionsValue: null,
          positionsAssetValue: null,
          positionsDebtValue: null,
          nftValue: null,
          totalValue: null,
          positionsSnapshotAt: null,
          nftSnapshotAt: null,
        },
      ],
      // A gap first (no refresh yet), then three values.
      series: [point(12, null), point(8, '1000.5'), point(4, '1100'), point(0, '1234.129999')],
      from,
      to: now,
    },
  };

  it('lists each watched address with its latest values, exact in the title, and a 7-day sparkline', () => {
    const page = renderStatusPage(data({ addresses }));
    const row = page.slice(
      page.indexOf(`<tr data-address="${address}">`),
      page.indexOf('</tr>', page.indexOf(`<tr data-address="${address}">`)),
    );
    expect(row).toContain(`<td class="num" title="1234.129999">$1,234.13</td>`);
    expect(row).toContain(
      `<td class="num" title="1234.004999">$1,234.00<div class="muted" title="9234.004999 assets − 8000 debt">of which debt $8,000.00</div></td>`,
    );
    expect(row).toContain(`<td class="num" title="0.125">$0.13</td>`);
    expect(row).toContain('2024-05-02 11:45:00 UTC');
    expect(row).toMatch(/<svg class="sparkline"[^>]*>.*<path class="spark-line" d="M[^"]*" data-points="3"/);
    expect(page).toMatch(
      new RegExp(`<tr data-address="${idle}">.*<td class="num muted">—</td>.*<svg class="sparkline"`),
    );
  });

  it('says what each address is watched for: its format, datasets and chains', () => {
    const page = renderStatusPage(data({ addresses }));
    expect(page).toContain(
      `<tr data-address="${address}"><td class="mono"><a href="/report/portfolio?address=${address}">${address}</a></td><td class="watch">SUI<div class="muted">positions on every chain; NFTs on ALL</div></td>`,
    );
    expect(page).toContain(`<td class="watch">EVM<div class="muted">NFTs on ETH</div></td>`);
  });

  it('links each address to its portfolio report, with the token when given one', () => {
    expect(renderStatusPage(data({ addresses }))).toContain(
      `<a href="/report/portfolio?address=${address}">${address}</a>`,
    );
    expect(renderStatusPage(data({ addresses }), { token: 'a b&c' })).toContain(
      `<a href="/report/portfolio?address=${address}&amp;token=a%20b%26c">`,
    );
  });

  it('says when nothing is watched, and counts an unreadable section', () => {
    expect(renderStatusPage(data())).toContain('No watched addresses');
    const page = renderStatusPage(data({ addresses: { ok: false, error: 'Postgres did not answer within 3000 ms' } }));
    expect(page).toMatch(/<section id="addresses"><h2>Watched addresses<\/h2><p class="error">Unavailable: Postgres/);
    expect(page).toContain('1 section(s) unavailable');
  });
});
