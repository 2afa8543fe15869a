import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import type { Database } from './client.ts';

/** The login role with chaintap_reader's rights (docs/schema.md) that `chaintap demo` makes for BI tools. */
const DEMO_READER_LOGIN = 'chaintap_demo_reader';

const SCRAM_ITERATIONS = 4096;

/**
 * The SCRAM-SHA-256 verifier of a password (RFC 7677, as psql's \password computes it): sent instead
 * of the password, it keeps it out of the server's logs and pg_stat_activity.
 */
export function scramVerifier(password: string, salt: Buffer = randomBytes(16)): string {
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, SCRAM_ITERATIONS, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${SCRAM_ITERATIONS}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/**
 * Creates (or takes over) the login role, a member of chaintap_reader only, with a new random
 * password, and returns `databaseUrl` with this role and password. Needs a role that may create roles.
 */
export async function createReaderLogin(
  database: Database,
  databaseUrl: string,
  role: string = DEMO_READER_LOGIN,
): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(role)) throw new Error(`invalid role name ${role}`);
  const password = randomBytes(18).toString('base64url');
  // A verifier is base64 and `$`, `:` only: safe inside a literal (utility statements take no parameters).
  const verifier = scramVerifier(password);
  await database.sql.begin(async (sql) => {
    // Roles are cluster-wide: another database of the cluster may have made it.
    await sql.unsafe(`DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${role}') THEN
    CREATE ROLE ${role} LOGIN;
  END IF;
END
$$`);
    await sql.unsafe(
      `ALTER ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS CONNECTION LIMIT 20 PASSWORD '${verifier}'`,
    );
    await sql.unsafe(`GRANT chaintap_reader TO ${role}`);
  });
  const url = new URL(databaseUrl);
  url.username = role;
  url.password = password;
  return url.toString();
}
