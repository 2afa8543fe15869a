import { isIPv4, isIPv6 } from 'node:net';

/**
 * Whether a host (a setting's host, or a URL's hostname with IPv6 in brackets) is this machine
 * only: localhost and its subdomains, 127.0.0.0/8, ::1, and 127.x mapped into IPv6 (written
 * `::ffff:127.0.0.1`, or `::ffff:7f00:1` as URL writes it). Any other host, a name that merely
 * starts with 127 included, counts as reachable from elsewhere.
 */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  const mapped = bare.startsWith('::ffff:') ? bare.slice('::ffff:'.length) : bare;
  if (isIPv4(mapped)) return mapped.startsWith('127.');
  if (!isIPv6(bare)) return false;
  return bare === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(bare);
}
