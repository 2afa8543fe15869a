import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction, writeNftHoldings, writePositions } from '../../src/db/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commit, nftRows, positionRows, wirePosition } from './job-helpers.ts';

const TICK = new Date('2026-11-21T12:00:00Z');
const owner = (n: number) => `0x${String(n).repeat(64)}`;
const group = (owner: string) => ({
  owner,
  collectionId: 'apes',
  collection: { id: 'apes', name: 'Apes', chain: 'SUI' },
  tokens: [{ tokenId: `${owner}-1` }],
});

/**
 * Protocols and collections are shared by every owner. A job that names one as it is stored must
 * not lock it: jobs of other owners would wait for that job's whole transaction.
 */
describe('shared rows stored unchanged', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await commit(database, 'positions', owner(1), TICK, (tx) =>
      writePositions(tx, positionRows([wirePosition('a', { input: 1 })], TICK, owner(1)), {
        owner: owner(1),
        snapshotAt: TICK,
        complete: true,
      }),
    );
    await commit(database, 'nfts', owner(1), TICK, (tx) =>
      writeNftHoldings(tx, nftRows([group(owner(1))], TICK, owner(1)), {
        owner: owner(1),
        snapshotAt: TICK,
        scopeChain: 'ALL',
      }),
    );
  });
  afterAll(() => database.drop());

  it('are not locked by a job that names them, so a concurrent job of another owner does not wait', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const firstWrote = new Promise<void>((resolve) => (written = resolve));
    // Owner 2's job writes, then keeps its transaction open.
    const first = withTransaction(database, 'positions.write', async (tx) => {
      await writePositions(tx, positionRows([wirePosition('b', { input: 2 })], TICK, owner(2)), {
        owner: owner(2),
        snapshotAt: TICK,
        complete: true,
      });
      await writeNftHoldings(tx, nftRows([group(owner(2))], TICK, owner(2)), {
        owner: owner(2),
        snapshotAt: TICK,
        scopeChain: 'ALL',
      });
      written();
      await held;
    });
    await firstWrote;
    // Owner 3's job names the same protocol and collection; it fails at once if it has to wait for a lock.
    const second = withTransaction(database, 'positions.write', async (tx) => {
      await tx.sql`set local lock_timeout = '1s'`;
      const positions = await writePositions(tx, positionRows([wirePosition('c', { input: 3 })], TICK, owner(3)), {
        owner: owner(3),
        snapshotAt: TICK,
        complete: true,
      });
      const nfts = await writeNftHoldings(tx, nftRows([group(owner(3))], TICK, owner(3)), {
        owner: owner(3),
        snapshotAt: TICK,
        scopeChain: 'ALL',
      });
      return { positions, nfts };
    });
    const outcome = await second.finally(release);
    await first;
    expect(outcome.positions).not.toHaveProperty('protocols');
    expect(outcome.nfts).not.toHaveProperty('nft_collections');
  });

  it('are still written when a job brings a change', async () => {
    const later = new Date(TICK.getTime() + 900_000);
    const renamed = { ...group(owner(1)), collection: { id: 'apes', name: 'Apes v2', chain: 'SUI' } };
    const result = await commit(database, 'nfts', owner(1), later, (tx) =>
      writeNftHoldings(tx, nftRows([renamed], later, owner(1)), {
        owner: owner(1),
        snapshotAt: later,
        scopeChain: 'ALL',
      }),
    );
    expect(result.byTable.nft_collections).toBe(1);
    await expect(database.sql`select name from nft_collections where collection_id = 'apes'`).resolves.toEqual([
      { name: 'Apes v2' },
    ]);
  });
});
