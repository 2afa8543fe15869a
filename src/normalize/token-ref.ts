import { tokenId } from '../chain/token-id.ts';

/** Fields of a token object that may carry its coin type or address, in order of preference. */
const ID_FIELDS = [
  'coinType',
  'coin_type',
  'coin',
  'address',
  'contract_address',
  'contractAddress',
  'tokenAddress',
  'token_address',
  'id',
];

export interface TokenRef {
  /** Coin type or address in its normal form when it is one (so it joins token_prices), else as given. */
  token: string | null;
  tokenSymbol: string | null;
  /** The token object as received; null when the token came as a string. */
  tokenInfo: Record<string, unknown> | null;
}

/** Reads the `token` of an amount entry, a string or an object (its shape is not documented). */
export function readTokenRef(token: string | Record<string, unknown> | null | undefined): TokenRef {
  if (token === null || token === undefined) return { token: null, tokenSymbol: null, tokenInfo: null };
  if (typeof token === 'string') return { token: tokenId(token), tokenSymbol: null, tokenInfo: null };
  const id = tokenObjectId(token);
  const symbol = token.symbol;
  return {
    token: id === undefined ? null : tokenId(id),
    tokenSymbol: typeof symbol === 'string' ? symbol : null,
    tokenInfo: token,
  };
}

/** The coin type or address a token object carries, as given (the first of ID_FIELDS that has one). */
export function tokenObjectId(token: Record<string, unknown>): string | undefined {
  const field = ID_FIELDS.find((name) => typeof token[name] === 'string' && token[name] !== '');
  return field === undefined ? undefined : (token[field] as string);
}
