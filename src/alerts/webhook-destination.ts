import { lookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent } from 'undici';
import type { WebhookNetwork } from '../config/options.ts';
import { ChaintapError } from '../errors.ts';

/**
 * Where an alert webhook may be: the public internet, and the networks ALERT_WEBHOOK_NETWORKS opens
 * (loopback, private, link-local). Every address a name resolves to is checked, and the connection
 * goes to the checked address (the lookup below is the socket's own), so that a second DNS answer
 * (rebinding) cannot send it elsewhere. Link-local holds the cloud metadata service (169.254.169.254).
 */

type Kind = WebhookNetwork | 'unusable';

const RANGES: Record<Kind, [address: string, prefix: number][]> = {
  // 0.0.0.0/8 and :: reach this machine when connected to.
  loopback: [
    ['127.0.0.0', 8],
    ['0.0.0.0', 8],
    ['::1', 128],
    ['::', 128],
  ],
  'link-local': [
    ['169.254.0.0', 16],
    ['fe80::', 10],
  ],
  // RFC 1918, the carrier-grade NAT range (100.100.100.200 is a cloud's metadata), IPv6 unique local.
  private: [
    ['10.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
    ['100.64.0.0', 10],
    ['fc00::', 7],
  ],
  // Multicast, reserved and broadcast: no webhook is there.
  unusable: [
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
    ['ff00::', 8],
  ],
};

const BLOCKS = Object.entries(RANGES).map(([kind, ranges]) => {
  const list = new BlockList();
  for (const [address, prefix] of ranges) list.addSubnet(address, prefix, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  return { kind: kind as Kind, list };
});

/** An IPv4 address mapped into IPv6 (`::ffff:127.0.0.1`, written `::ffff:7f00:1` too), as IPv4. */
function unmapped(address: string): string {
  if (isIP(address) !== 6) return address;
  const canonical = new URL(`http://[${address}]/`).hostname;
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(canonical);
  if (!mapped) return address;
  const [high, low] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** The network of an IP address: public, or one of those a setting may open, or none a webhook can be on. */
export function networkOf(address: string): Kind | 'public' {
  const plain = unmapped(address);
  const family = isIP(plain) === 6 ? 'ipv6' : 'ipv4';
  return BLOCKS.find(({ list }) => list.check(plain, family))?.kind ?? 'public';
}

/** A webhook's destination refused by ALERT_WEBHOOK_NETWORKS: a delivery to it fails at once, never retried. */
export class WebhookDestinationError extends ChaintapError {
  override readonly retryable = false;
}

/** Why a webhook may not connect to `address`, or undefined when it may. */
export function destinationProblem(address: string, allowed: readonly WebhookNetwork[]): string | undefined {
  const kind = networkOf(address);
  if (kind === 'public' || (kind !== 'unusable' && allowed.includes(kind))) return undefined;
  if (kind === 'unusable') return `${address} is a multicast or reserved address`;
  return `${address} is a ${kind} address, refused unless ALERT_WEBHOOK_NETWORKS includes ${kind}`;
}

/** The socket's lookup: every address of the name checked, and only checked ones handed to the connection. */
function checkedLookup(allowed: readonly WebhookNetwork[]): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const problem = addresses.map(({ address }) => destinationProblem(address, allowed)).find(Boolean);
      if (problem) return callback(new WebhookDestinationError(`${hostname} resolves to ${problem}`), '', 0);
      const [first] = addresses;
      if (options.all) (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, addresses);
      else callback(null, first!.address, first!.family);
    });
  };
}

export interface WebhookRoute {
  allowed: readonly WebhookNetwork[];
  /** The connection pool of every delivery, its sockets opened through the checked lookup. */
  dispatcher: Agent;
  close(): Promise<void>;
}

/** How a process reaches its webhooks: one pool, its destinations checked. */
export function createWebhookRoute(allowed: readonly WebhookNetwork[]): WebhookRoute {
  const dispatcher = new Agent({ connect: { lookup: checkedLookup(allowed) } });
  return { allowed, dispatcher, close: () => dispatcher.close() };
}

/** A URL whose host is an address: connected to without a lookup, so checked here. */
export function literalAddressProblem(url: string, allowed: readonly WebhookNetwork[]): string | undefined {
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) === 0 ? undefined : destinationProblem(host, allowed);
}
