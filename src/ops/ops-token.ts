import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Set after a `?token=` login so that pages which do not carry the token (Bull Board's UI) still pass. */
export const OPS_TOKEN_COOKIE = 'chaintap_ops_token';

/** Paths open without the token: liveness only (it tells nothing but "the process answers"). */
const OPEN_PATHS = new Set(['/healthz']);

const digest = (value: string) => createHash('sha256').update(value).digest();

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) {
      try {
        return decodeURIComponent(part.slice(separator + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

function queryToken(url: string): string | undefined {
  const query = url.indexOf('?');
  return query < 0 ? undefined : (new URLSearchParams(url.slice(query + 1)).get('token') ?? undefined);
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/**
 * An onRequest hook that requires OPS_TOKEN on every route but /healthz: as `Authorization: Bearer`,
 * as `?token=` (a browser opening the page), or as the cookie a `?token=` visit sets. Compared in
 * constant time over SHA-256 digests, so neither the content nor the length leaks through timing.
 */
export function requireOpsToken(token: string) {
  const expected = digest(token);
  const matches = (candidate: string | undefined) =>
    candidate !== undefined && timingSafeEqual(digest(candidate), expected);

  return async function checkOpsToken(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    if (OPEN_PATHS.has(pathOf(request.url))) return undefined;
    const authorization = request.headers.authorization;
    const bearer = authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length).trim() : undefined;
    if (matches(bearer) || matches(cookieValue(request.headers.cookie, OPS_TOKEN_COOKIE))) return undefined;
    if (matches(queryToken(request.url))) {
      reply.header('set-cookie', `${OPS_TOKEN_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict`);
      return undefined;
    }
    return reply
      .code(401)
      .header('www-authenticate', 'Bearer realm="chaintap ops"')
      .send({ error: 'unauthorized', message: 'OPS_TOKEN required: Authorization: Bearer <token> or ?token=<token>' });
  };
}
