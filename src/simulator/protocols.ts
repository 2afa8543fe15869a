/**
 * The DeFi protocols of the simulated upstream: the answer of GET /v2/defi/protocols and the
 * `meta.protocol` of every position. Each protocol serves some position types on some chains.
 */
export const POSITION_TYPES = [
  'liquidity_pool',
  'lending_supply',
  'lending_borrow',
  'staking',
  'farming',
  'vesting',
  'perp',
  'vault',
  'liquid_staking',
] as const;
export type PositionType = (typeof POSITION_TYPES)[number];

export type PositionChain = 'sui' | 'ethereum' | 'arbitrum';

/** A protocol: its `meta.protocol` fields and the position types it serves on its chains. */
export const protocol = (id: string, name: string, site: string, chains: PositionChain[], types: PositionType[]) => ({
  protocol: id,
  name,
  logo: `https://icons.simulated.chaintap.dev/protocols/${id}.png`,
  url: `https://${site}`,
  chains,
  types,
});
export type SimulatedProtocol = ReturnType<typeof protocol>;

const PROTOCOLS: readonly SimulatedProtocol[] = [
  protocol('cetus', 'Cetus', 'app.cetus.zone', ['sui'], ['liquidity_pool', 'farming', 'vesting']),
  protocol('turbos', 'Turbos Finance', 'app.turbos.finance', ['sui'], ['liquidity_pool']),
  protocol('navi', 'NAVI Protocol', 'app.naviprotocol.io', ['sui'], ['lending_supply', 'lending_borrow']),
  protocol('scallop', 'Scallop', 'app.scallop.io', ['sui'], ['lending_supply', 'lending_borrow', 'staking']),
  protocol('suilend', 'Suilend', 'suilend.fi', ['sui'], ['lending_supply', 'lending_borrow']),
  protocol('aftermath', 'Aftermath Finance', 'aftermath.finance', ['sui'], ['liquid_staking', 'farming', 'staking']),
  protocol('haedal', 'Haedal', 'haedal.xyz', ['sui'], ['liquid_staking']),
  protocol('volo', 'Volo', 'volo.fi', ['sui'], ['liquid_staking']),
  protocol('bluefin', 'Bluefin', 'trade.bluefin.io', ['sui'], ['perp', 'liquidity_pool']),
  protocol('kai-finance', 'Kai Finance', 'kai.finance', ['sui'], ['vault']),
  protocol('uniswap-v3', 'Uniswap V3', 'app.uniswap.org', ['ethereum', 'arbitrum'], ['liquidity_pool']),
  protocol('aave-v3', 'Aave V3', 'app.aave.com', ['ethereum', 'arbitrum'], ['lending_supply', 'lending_borrow']),
  protocol('lido', 'Lido', 'stake.lido.fi', ['ethereum'], ['liquid_staking', 'staking']),
  protocol('gmx', 'GMX', 'app.gmx.io', ['arbitrum'], ['perp', 'vault']),
  protocol('yearn', 'Yearn', 'yearn.fi', ['ethereum', 'arbitrum'], ['vault']),
  protocol('pendle', 'Pendle', 'app.pendle.finance', ['ethereum', 'arbitrum'], ['farming', 'staking']),
  protocol('sablier', 'Sablier', 'app.sablier.com', ['ethereum', 'arbitrum'], ['vesting']),
];

/** Every protocol the simulated upstream knows, in a fixed order. */
export function simulatedProtocols(): readonly SimulatedProtocol[] {
  return PROTOCOLS;
}

/** The protocols that serve a position type on a chain. */
export function protocolsFor(type: PositionType, chain: PositionChain): SimulatedProtocol[] {
  return PROTOCOLS.filter((candidate) => candidate.types.includes(type) && candidate.chains.includes(chain));
}

export function findProtocol(id: string): SimulatedProtocol | undefined {
  return PROTOCOLS.find((candidate) => candidate.protocol === id);
}

/** The answer of GET /v2/defi/protocols. */
export function simulatedProtocolsResponse() {
  return {
    data: PROTOCOLS.map(({ protocol: id, name, logo, url, chains }) => ({ protocol: id, name, logo, url, chains })),
  };
}
