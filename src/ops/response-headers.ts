/**
 * Headers every ops answer carries: no page may be framed by another site (clickjacking), no body
 * read as another type than it says (nosniff), and no Referer sent on (links carry ?token=).
 */

const NO_FRAMING = "frame-ancestors 'none'";

/**
 * Bull Board's own policy: its scripts, styles and locale files from its own path; its web fonts
 * are refused, so that opening it fetches nothing from another site (the board falls back to the
 * system's fonts). Its UI configuration is a JSON data block, which script-src does not govern.
 */
const BOARD_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/** Answers that are no page (JSON, metrics): nothing may load. */
const DATA_POLICY = "default-src 'none'";

/** The Content-Security-Policy of an answer: the route's own, else the board's or none at all, never frameable. */
export function contentSecurityPolicy(path: string, own: string | undefined): string {
  const policy = own ?? (path === '/queues' || path.startsWith('/queues/') ? BOARD_POLICY : DATA_POLICY);
  return policy.includes('frame-ancestors') ? policy : `${policy}; ${NO_FRAMING}`;
}

export const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  // frame-ancestors' older twin, for browsers without CSP level 2.
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
} as const;
