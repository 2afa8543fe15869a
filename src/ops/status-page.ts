import Big from 'big.js';
import type { WatchedAddressValue } from '../db/stores/reports.ts';
import { addressFormatLabel, describeAddressWatch } from './address-watch.ts';
import { Html, html } from './html.ts';
import { renderSparklineSvg, renderTimeChartSvg, type TimeValue } from './charts.ts';
import { formatSpan } from '../runtime/time-span.ts';
import { figureCell, figureText, formatPercent, formatUsd, shortCoin } from './figures.ts';
import { QUEUE_STATES } from './queue-depths.ts';
import { quotaOverBudget, type Section, type StatusPageData } from './status-page-data.ts';
import type { ReplicaLag } from '../db/read-replica.ts';
import type { WatchedTokenRow } from '../db/stores/status.ts';
import { DATASETS } from '../datasets.ts';
import {
  describeCadence,
  describeVerdict,
  describeWatchlist,
  formatMinutes,
  formatPerHour,
  howToFit,
} from '../scheduler/capacity-plan.ts';
import { renderAlertsSection } from './status-page-alerts.ts';

/** Seconds between automatic reloads of the page. */
const STATUS_REFRESH_SECONDS = 30;

const STYLE = new Html(`
  :root { color-scheme: light; }
  body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; background: #f6f8fa; color: #1f2328; }
  header { background: #24292f; color: #fff; padding: 12px 24px; display: flex; align-items: baseline; gap: 24px; flex-wrap: wrap; }
  header h1 { font-size: 18px; margin: 0; }
  header a { color: #9ecbff; }
  header .generated { color: #c9d1d9; margin-left: auto; font-size: 12px; }
  main { max-width: 1240px; margin: 0 auto; padding: 16px 24px 40px; }
  section { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 12px 16px; margin-bottom: 16px; }
  h2 { font-size: 15px; margin: 0 0 8px; }
  table { border-collapse: collapse; width: 100%; font-size: 13px; }
  th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #eaeef2; vertical-align: top; }
  th { color: #57606a; font-weight: 600; }
  td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
  .mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
  .muted { color: #57606a; }
  .error { color: #cf222e; }
  .pill { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px; }
  .pill.failed { background: #ffebe9; color: #cf222e; }
  .pill.retrying { background: #fff8c5; color: #9a6700; }
  .pill.quarantined { background: #fbefff; color: #8250df; }
  .never { color: #cf222e; font-weight: 600; }
  section.over-budget { border: 2px solid #cf222e; }
  .pill.fits { background: #dafbe1; color: #1a7f37; }
  .pill.over { background: #ffebe9; color: #cf222e; font-weight: 600; }
  .short { color: #9a6700; font-weight: 600; }
  .charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(380px, 1fr)); gap: 12px; }
  .token { border: 1px solid #eaeef2; border-radius: 6px; padding: 8px 10px; }
  .token .name { font-weight: 600; }
  .token .coin { display: block; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .token .latest { font-variant-numeric: tabular-nums; }
  .token .when { font-size: 12px; }
  .price-chart { display: block; width: 100%; height: auto; margin-top: 4px; }
  .up, .positive { color: #1a7f37; } .down, .negative { color: #cf222e; }
  .truncate { max-width: 420px; overflow: hidden; text-overflow: ellipsis; }
  .sparkline { display: block; }
`);

function formatTime(time: Date | null | undefined): string {
  return time ? `${time.toISOString().slice(0, 19).replace('T', ' ')} UTC` : '—';
}

/** What a section of the page holds once loaded. */
type Loaded<Name extends keyof StatusPageData> = Extract<StatusPageData[Name], { ok: true }>['value'];

/** A loaded section's content, or why it could not be loaded. */
function shown<T>(section: Section<T>, render: (value: T) => Html | string): Html | string {
  return section.ok ? render(section.value) : html`<p class="error">Unavailable: ${section.error}</p>`;
}

function freshnessTable(freshness: Loaded<'freshness'>, now: Date): Html {
  const byDataset = new Map(freshness.map((row) => [row.dataset, row]));
  const names = [...new Set([...DATASETS, ...byDataset.keys()])];
  const rows = names.map((dataset) => {
    const row = byDataset.get(dataset);
    if (!row?.newestTick) {
      return html`<tr data-dataset="${dataset}"><td>${dataset}</td><td class="num">${row?.targets ?? 0}</td><td class="never" colspan="4">no successful run yet</td></tr>`;
    }
    const age = (now.getTime() - row.newestTick.getTime()) / 1000;
    return html`<tr data-dataset="${dataset}"><td>${dataset}</td><td class="num">${row.targets}</td><td class="num freshness">${formatSpan(age)}</td><td>${formatTime(row.newestTick)}</td><td>${formatTime(row.oldestTick)}</td><td>${formatTime(row.lastSuccessAt)}</td></tr>`;
  });
  return html`<table><thead><tr><th>dataset</th><th class="num">targets</th><th class="num">freshness</th><th>last tick</th><th>stalest target's tick</th><th>last success at</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function queuesTable(queues: Loaded<'queues'>): Html {
  const rows = queues.map(
    ({ queue, counts }) =>
      html`<tr data-queue="${queue}"><td>${queue}</td>${QUEUE_STATES.map((state) => html`<td class="num" data-state="${state}">${counts[state]}</td>`)}</tr>`,
  );
  const head = QUEUE_STATES.map((state) => html`<th class="num">${state}</th>`);
  return html`<table><thead><tr><th>queue</th>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

function change(token: WatchedTokenRow): Html {
  if (!token.price || !token.price24hAgo || new Big(token.price24hAgo).eq(0)) return html``;
  const percent = new Big(token.price).minus(token.price24hAgo).div(token.price24hAgo).times(100);
  const shown = formatPercent(percent.toFixed(), { signed: true });
  return html` <span class="${shown.startsWith('-') ? 'down' : 'up'}">${shown} / 24 h</span>`;
}

function tokenCard(token: WatchedTokenRow, series: TimeValue[], data: StatusPageData): Html {
  const name = token.symbol ?? shortCoin(token.coinType);
  const chart = renderTimeChartSvg([{ name: 'price', className: 'price-line', color: '#2563eb', points: series }], {
    from: data.since,
    to: data.now,
    title: `${name} price in USD, last 24 h (${series.length} prices)`,
    width: 360,
    height: 140,
    className: 'price-chart',
    compact: true,
    area: true,
    emptyText: 'no prices in this window',
  });
  const latest = token.price
    ? html`<div><span class="latest">${figureText(token.price, 'usd-price')}</span>${change(token)}</div><div class="when muted">price time ${formatTime(token.priceTime)} · ${series.length} prices in 24 h</div>`
    : html`<div class="muted">no price yet</div>`;
  return html`<div class="token" data-coin-type="${token.coinType}"><span class="name">${name}</span><span class="coin mono muted" title="${token.coinType}">${shortCoin(token.coinType)}</span>${latest}${chart}</div>`;
}

function tokenCards(tokens: Loaded<'tokens'>, data: StatusPageData): Html {
  if (tokens.watched.length === 0)
    return html`<p class="muted">No watched tokens (chaintap tokens add &lt;coin type&gt;).</p>`;
  const series = Map.groupBy(tokens.prices, (row) => row.coinType);
  const points = (coinType: string) =>
    (series.get(coinType) ?? []).map((row) => ({ time: row.priceTime, value: row.price }));
  return html`<div class="charts">${tokens.watched.map((token) => tokenCard(token, points(token.coinType), data))}</div>`;
}

function failuresTable(failures: Loaded<'failures'>): Html {
  if (failures.length === 0) return html`<p class="muted">No failed, retrying or quarantined runs.</p>`;
  const rows = failures.map(
    (run) =>
      html`<tr data-run-id="${run.id}"><td>${formatTime(run.startedAt)}</td><td>${run.dataset}</td><td class="mono">${run.target}</td><td>${formatTime(run.tick)}</td><td><span class="pill ${run.status}">${run.status}</span></td><td class="num">${run.attempts}</td><td class="num">${run.httpStatus ?? '—'}</td><td class="truncate">${run.error ?? ''}</td></tr>`,
  );
  return html`<table><thead><tr><th>started</th><th>dataset</th><th>target</th><th>tick</th><th>status</th><th class="num">attempts</th><th class="num">HTTP</th><th>error</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function quarantinedTable(quarantined: Loaded<'quarantined'>): Html {
  if (quarantined.length === 0) return html`<p class="muted">No quarantined payloads.</p>`;
  const rows = quarantined.map(
    (payload) =>
      html`<tr data-quarantine-id="${payload.id}"><td>${formatTime(payload.receivedAt)}</td><td>${payload.dataset}</td><td class="mono">${payload.endpoint}</td><td class="mono">${payload.target ?? '—'}</td><td>${formatTime(payload.tick)}</td><td class="num">${payload.httpStatus ?? '—'}</td><td class="truncate">${payload.reason}</td></tr>`,
  );
  return html`<table><thead><tr><th>received</th><th>dataset</th><th>endpoint</th><th>target</th><th>tick</th><th class="num">HTTP</th><th>reason</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function driftsTable(drifts: Loaded<'drifts'>): Html {
  if (drifts.length === 0) return html`<p class="muted">Every field came in its documented shape.</p>`;
  const rows = drifts.map(
    (drift) =>
      html`<tr><td>${drift.dataset}</td><td class="mono">${drift.field}</td><td>${drift.shape}</td><td class="num">${drift.count}</td><td>${formatTime(drift.firstSeenAt)}</td><td>${formatTime(drift.lastSeenAt)}</td></tr>`,
  );
  return html`<table><thead><tr><th>dataset</th><th>field</th><th>shape</th><th class="num">ticks</th><th>first tick</th><th>last tick</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The pause of every process's upstream requests in force (a 429), above the quota's figures. */
function pauseLine(data: StatusPageData): Html | string {
  return shown(data.pause, (pause) => {
    if (!pause) return '';
    const left = formatSpan((pause.until.getTime() - data.now.getTime()) / 1000);
    return html`<p class="error paused" data-paused-until="${pause.until.toISOString()}">Upstream requests paused until ${formatTime(pause.until)} (${left} from now): ${pause.reason}</p>`;
  });
}

/** What refreshing by change rate buys, per address dataset, and what the last day's refreshes saw. */
function refreshTable({ refresh, changes }: Loaded<'quota'>, now: Date): Html {
  const changesOf = new Map(changes.map((row) => [row.dataset, row]));
  const minutes = (seconds: number | null) => formatMinutes(seconds === null ? null : seconds / 60);
  const rows = refresh.datasets.map((dataset) => {
    const seen = changesOf.get(dataset.dataset);
    const nearest = dataset.nearestMaxAge.map(
      ({ target, ageSeconds, maxAgeSeconds }) =>
        html`<div class="mono" title="${target}">${target.slice(0, 10)}… ${formatSpan(ageSeconds)} of ${formatSpan(maxAgeSeconds)}</div>`,
    );
    return html`<tr data-refresh-dataset="${dataset.dataset}"><td>${dataset.dataset}</td><td class="num">${dataset.targets}</td><td class="num budget">${formatPerHour(dataset.perHour)}${dataset.everySlot ? html`<div class="muted">every slot</div>` : ''}</td><td class="num expected">${minutes(dataset.meanDelaySeconds)} / ${minutes(dataset.p95DelaySeconds)}</td><td class="num measured">${seen ? html`${seen.changes}, ${minutes(seen.meanDelaySeconds)}` : '0'}</td><td class="num over-max-age${dataset.overMaxAge > 0 ? ' error' : ''}">${dataset.overMaxAge}</td><td>${nearest}</td></tr>`;
  });
  const held = refresh.unheld
    ? html`<p class="error">The quota cannot refresh every address within its max age (chaintap plan).</p>`
    : '';
  return html`${held}<table class="refresh" data-now="${now.toISOString()}"><thead><tr><th>refresh by change rate</th><th class="num">addresses</th><th class="num">budget req/h</th><th class="num">expected delay, mean / p95</th><th class="num">changes seen, last 24 h, and their delay</th><th class="num">over max age</th><th>nearest their max age</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function quotaBody(quota: Loaded<'quota'>): Html {
  const { plan, superseded } = quota;
  const supersededBy = new Map(superseded.map((row) => [row.dataset, row.superseded]));
  const verdict = plan.fits
    ? html`<span class="pill fits">${describeVerdict(plan)}</span>`
    : quotaOverBudget(quota)
      ? html`<span class="pill over">${describeVerdict(plan)}</span> <span class="muted">To fit: ${howToFit(plan)}.</span>`
      : html`<span class="pill fits">refreshed by change rate, every address within its max age</span> <span class="muted">Every address every slot: ${describeVerdict(plan)}.</span>`;
  const rows = plan.datasets.map((dataset) => {
    const cadence = describeCadence(plan, dataset);
    const cadenceClass = dataset.cadenceMinutes === null ? 'cadence never' : dataset.fits ? 'cadence' : 'cadence short';
    return html`<tr data-quota-dataset="${dataset.dataset}"><td>${dataset.dataset}</td><td class="mono">${dataset.cron}</td><td class="num">${dataset.requestsPerSlot}</td><td class="num needed">${formatPerHour(dataset.neededPerHour)}</td><td class="num granted">${formatPerHour(dataset.grantedPerHour)}</td><td class="${cadenceClass}">${cadence}</td><td class="num superseded">${supersededBy.get(dataset.dataset) ?? 0}</td></tr>`;
  });
  return html`<p class="verdict" data-fits="${String(plan.fits)}">Quota <span class="mono">${plan.rate.label}</span> (UPSTREAM_RATE): ${formatPerHour(plan.availablePerHour)} req/h; the watchlist (${describeWatchlist(plan)}) needs ${formatPerHour(plan.neededPerHour)} req/h. ${verdict}</p>
<table><thead><tr><th>dataset, in priority order</th><th>cron</th><th class="num">requests per slot</th><th class="num">needs req/h</th><th class="num">gets req/h</th><th>refreshes each target</th><th class="num">superseded, last hour</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The positions' net worth, with the debt inside it beneath when it owes any (exact figures in the titles). */
function positionsCell(address: WatchedAddressValue): Html {
  const { positionsValue, positionsAssetValue, positionsDebtValue } = address;
  if (positionsValue === null || positionsDebtValue === null || !/[1-9]/.test(positionsDebtValue))
    return figureCell(positionsValue, 'usd');
  return html`<td class="num" title="${positionsValue}">${formatUsd(positionsValue)}<div class="muted" title="${positionsAssetValue} assets − ${positionsDebtValue} debt">of which debt ${formatUsd(positionsDebtValue)}</div></td>`;
}

function addressesTable(
  { watched, series, from, to }: Loaded<'addresses'>,
  reportHref: (address: string) => string,
): Html {
  if (watched.length === 0)
    return html`<p class="muted">No watched addresses (chaintap addresses add &lt;address&gt;).</p>`;
  const pointsOf = Map.groupBy(series, (point) => point.owner);
  const rows = watched.map((address) => {
    const refreshed = [address.positionsSnapshotAt, address.nftSnapshotAt]
      .filter((time): time is Date => time !== null)
      .sort((a, b) => b.getTime() - a.getTime())[0];
    const sparkline = renderSparklineSvg(
      (pointsOf.get(address.address) ?? []).map((point) => ({ time: point.time, value: point.totalValue })),
      { from, to, title: `total value of ${address.address}, last 7 days` },
    );
    return html`<tr data-address="${address.address}"><td class="mono"><a href="${reportHref(address.address)}">${address.address}</a></td><td class="watch">${addressFormatLabel(address.address)}<div class="muted">${describeAddressWatch(address)}</div></td>${figureCell(address.totalValue, 'usd')}${positionsCell(address)}${figureCell(address.nftValue, 'usd')}<td>${formatTime(refreshed)}</td><td>${sparkline}</td></tr>`;
  });
  return html`<table><thead><tr><th>address (portfolio report)</th><th>watched for</th><th class="num">total value</th><th class="num">positions, net</th><th class="num">NFTs, USD</th><th>last refresh</th><th>total value, 7 days</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** One line on the read replica the page reads (DATABASE_READ_URL), when it reads one. */
function replicaLine({ inRecovery, lagSeconds }: ReplicaLag): Html {
  const lead = 'Every section below is read from the replica (DATABASE_READ_URL)';
  if (!inRecovery)
    return html`<p class="replica" data-lag-seconds="0">${lead}, which is not a standby: it has no replication lag to show.</p>`;
  if (lagSeconds === null) return html`<p class="replica short">${lead}, which has replayed no transaction yet.</p>`;
  if (lagSeconds === 0)
    return html`<p class="replica" data-lag-seconds="0">${lead}: it has replayed all the primary sent.</p>`;
  return html`<p class="replica${lagSeconds >= 60 ? ' short' : ''}" data-lag-seconds="${lagSeconds.toFixed(3)}">${lead}: ${lagSeconds < 10 ? `${lagSeconds.toFixed(1)} s` : formatSpan(lagSeconds)} behind the primary (since its last replayed commit).</p>`;
}

function section(id: string, title: string, body: Html | string, className?: string): Html {
  return html`<section id="${id}"${className ? html` class="${className}"` : ''}><h2>${title}</h2>${body}</section>`;
}

/**
 * The whole status page as one HTML document: no scripts, reloads itself every 30 s. `links.token`
 * is carried on every link so that a browser opened with `?token=` stays authorised.
 */
export function renderStatusPage(data: StatusPageData, links: { token?: string } = {}): string {
  const href = (path: string) => (links.token ? `${path}?token=${encodeURIComponent(links.token)}` : path);
  const reportHref = (address: string) =>
    `/report/portfolio?address=${encodeURIComponent(address)}${links.token ? `&token=${encodeURIComponent(links.token)}` : ''}`;
  // Every field but the two times is a section.
  const { now: _now, since: _since, ...sections } = data;
  const unavailable = Object.values(sections).filter((section) => section && !section.ok).length;
  const overBudget = data.quota.ok && quotaOverBudget(data.quota.value);
  const paused = data.pause.ok && data.pause.value !== null;
  const quotaTitle = paused ? 'Quota: requests paused' : overBudget ? 'Quota: over budget' : 'Quota';
  const freshness = shown(data.freshness, (rows) => freshnessTable(rows, data.now));
  const prices = shown(data.tokens, (tokens) => tokenCards(tokens, data));
  const addresses = shown(data.addresses, (value) => addressesTable(value, reportHref));
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${STATUS_REFRESH_SECONDS}">
<title>chaintap status</title><style>${STYLE}</style></head>
<body><header><h1>chaintap status</h1><nav><a href="${href('/queues')}">Queues (Bull Board)</a> · <a href="${href('/metrics')}">Metrics</a> · <a href="${href('/readyz')}">Readiness</a></nav><span class="generated">${formatTime(data.now)} · reloads every ${STATUS_REFRESH_SECONDS} s${unavailable ? html` · <span class="error">${unavailable} section(s) unavailable</span>` : ''}</span></header>
<main>
${data.replica ? section('replica', 'Read replica', shown(data.replica, replicaLine)) : ''}
${section('datasets', 'Datasets', freshness)}
${section('quota', quotaTitle, html`${pauseLine(data)}${shown(data.quota, (quota) => html`${quotaBody(quota)}${refreshTable(quota, data.now)}`)}`, overBudget || paused ? 'over-budget' : undefined)}
${section('queues', 'Queues', shown(data.queues, queuesTable))}
${section('prices', 'Watched token prices, last 24 hours', prices)}
${section('addresses', 'Watched addresses', addresses)}
${section('failures', 'Recent failures', shown(data.failures, failuresTable))}
${renderAlertsSection(data.alerts)}
${section('quarantine', 'Quarantined payloads', shown(data.quarantined, quarantinedTable))}
${section('drifts', 'Schema drifts, last 24 hours', shown(data.drifts, driftsTable))}
</main></body></html>
`.text;
}
