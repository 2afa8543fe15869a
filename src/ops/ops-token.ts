import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * What a request may do on the ops server: nothing but the open paths, read (status page,
 * /metrics, reports, Bull Board read-only), or also act on Bull Board (retry, remove, pause, ...).
 */
export type OpsAccess = 'none' | 'read' | 'admin';

/** Set after a `?token=` login so that pages which do not carry the token (Bull Board's UI) still pass. */
const OPS_SESSION_COOKIE = 'chaintap_ops_session';

/** Open without a token: liveness and readiness, for orchestrators' probes. */
const OPEN_PATHS = new Set(['/healthz', '/readyz']);

/** Requests with any other method may change something: every Bull Board action is a PUT, POST or PATCH. */
const READ_METHODS = new Set(['GET', 'HEAD']);

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant time over SHA-256 digests, so neither the content nor the length leaks through timing. */
function same(candidate: string | undefined, expected: string): boolean {
  return candidate !== undefined && timingSafeEqual(digest(candidate), digest(expected));
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

export function pathOf(url: string): string {
  return url.split('?', 1)[0]!;
}

/**
 * Access from `Authorization: Bearer`, `?token=` (a browser; it also sets the session cookie) or that
 * cookie: an HMAC of the token under a per-process key, so it reveals nothing and a restart voids it.
 * `read` is OPS_TOKEN (unset: reads are open, loopback only), `admin` OPS_ADMIN_TOKEN (unset: no acts).
 */
export function createOpsAuth(tokens: { read?: string; admin?: string }) {
  const key = randomBytes(32);
  const credentials = (['admin', 'read'] as const).flatMap((access) => {
    const token = tokens[access];
    return token
      ? [{ access, token, session: createHmac('sha256', key).update(`${access}\0${token}`).digest('base64url') }]
      : [];
  });
  type Credential = (typeof credentials)[number];

  // Every credential is compared (no early exit); admin comes first, so the first match is the widest.
  const widest = (matches: (credential: Credential) => boolean) => credentials.filter(matches).at(0);

  function resolve(request: FastifyRequest): { access: OpsAccess; login?: Credential } {
    const { authorization, cookie: cookies } = request.headers;
    const bearer = authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length).trim() : undefined;
    const cookie = cookieValue(cookies, OPS_SESSION_COOKIE);
    const query = new URLSearchParams(request.url.slice(pathOf(request.url).length + 1)).get('token') ?? undefined;
    const held = widest((c) => same(bearer, c.token) || same(cookie, c.session));
    const login = widest((c) => same(query, c.token));
    const best = [held, login].find((credential) => credential?.access === 'admin') ?? held ?? login;
    if (best) return { access: best.access, login };
    return { access: tokens.read ? 'none' : 'read' };
  }

  return {
    /** What the request's credentials allow. */
    accessOf: (request: FastifyRequest) => resolve(request).access,
    /**
     * The onRequest hook that guards every route, present and future, but the open paths: 401
     * without read access, 403 for any request but GET and HEAD without OPS_ADMIN_TOKEN.
     */
    async hook(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
      const { access, login } = resolve(request);
      if (login) {
        reply.header('set-cookie', `${OPS_SESSION_COOKIE}=${login.session}; Path=/; HttpOnly; SameSite=Strict`);
      }
      if (OPEN_PATHS.has(pathOf(request.url))) return undefined;
      if (access === 'none') {
        return reply.code(401).header('www-authenticate', 'Bearer realm="chaintap ops"').send({
          error: 'unauthorized',
          message: 'OPS_TOKEN required: Authorization: Bearer <token> or ?token=<token>',
        });
      }
      if (!READ_METHODS.has(request.method) && access !== 'admin') {
        return reply.code(403).send({
          error: 'forbidden',
          message: tokens.admin
            ? 'OPS_ADMIN_TOKEN required for Bull Board actions; OPS_TOKEN only reads'
            : 'Bull Board is read-only: set OPS_ADMIN_TOKEN to allow its actions',
        });
      }
      return undefined;
    },
  };
}
