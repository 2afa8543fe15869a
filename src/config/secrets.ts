/**
 * The values of the settings that are secrets, for the logger and the last-resort error print to
 * scrub: the tokens and passwords themselves, and the passwords inside the connection URLs. Takes
 * the environment (before the options load, which may fail) or the loaded options alike.
 */
const SECRET_SETTINGS = [
  'UPSTREAM_API_KEY',
  'OPS_TOKEN',
  'OPS_ADMIN_TOKEN',
  'REDIS_PASSWORD',
  'REDIS_SENTINEL_PASSWORD',
] as const;
const URL_SETTINGS = ['DATABASE_URL', 'DATABASE_READ_URL', 'REDIS_URL', 'REDIS_CLUSTER_NODES'] as const;

export function secretValues(settings: Partial<Record<string, unknown>>): string[] {
  const secrets: string[] = [];
  for (const name of SECRET_SETTINGS) {
    const value = settings[name];
    if (typeof value === 'string' && value) secrets.push(value);
  }
  for (const name of URL_SETTINGS) {
    const value = settings[name];
    if (typeof value !== 'string') continue;
    // REDIS_CLUSTER_NODES is a list; each entry may be a URL.
    for (const entry of value.split(',')) {
      const password = urlPassword(entry.trim());
      if (password) secrets.push(password);
    }
  }
  return secrets;
}

function urlPassword(value: string): string | undefined {
  try {
    const { password } = new URL(value);
    return password ? decodeURIComponent(password) : undefined;
  } catch {
    return undefined;
  }
}
