import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isLoopback } from '../config/loopback.ts';

/** A Host header: a name or an IPv4 address, or an IPv6 address in brackets, and an optional port. */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::\d{1,5})?$/;

/** The bare host of a Host header (lower case, IPv6 without brackets), or undefined when it is none. */
export function hostOf(header: string | undefined): string | undefined {
  const match = HOST_HEADER.exec(header?.trim().toLowerCase() ?? '');
  return match?.[1]!.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Whether a host names this machine and nothing else: `localhost` and loopback addresses. A name
 * under `.localhost` is left out: only a literal address, or the one name every resolver keeps,
 * cannot be pointed elsewhere by a DNS answer.
 */
function isLoopbackName(host: string): boolean {
  return host === 'localhost' || (isIP(host) !== 0 && isLoopback(host));
}

/**
 * The onRequest hook of a server without OPS_TOKEN: it answers only requests addressed to one of its
 * own names, loopback or OPS_ALLOWED_HOSTS (any port), so that a web page whose domain a DNS answer
 * rebinds to 127.0.0.1 cannot read it from the operator's browser. 403 for any other Host.
 */
export function createHostCheck(allowedHosts: readonly string[]) {
  const allowed = new Set(allowedHosts.map((host) => host.toLowerCase().replace(/^\[(.*)\]$/, '$1')));
  return async function hostCheck(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const host = hostOf(request.headers.host);
    if (host !== undefined && (isLoopbackName(host) || allowed.has(host))) return undefined;
    const shown = (request.headers.host ?? '').slice(0, 100);
    return reply.code(403).send({
      error: 'forbidden',
      message:
        `Host "${shown}" is not a name of this server: without OPS_TOKEN it answers only localhost, 127.0.0.1 ` +
        'and [::1] (any port). Add the name to OPS_ALLOWED_HOSTS, or set OPS_TOKEN',
    });
  };
}
