/** The upstream's limit on tokens in one price request (upstream-api.md section 8). */
export const MAX_COINS_PER_PRICE_REQUEST = 50;
