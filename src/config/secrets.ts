const SECRET_SETTINGS = [
  'UPSTREAM_API_KEY',
  'OPS_TOKEN',
  'OPS_ADMIN_TOKEN',
  'REDIS_PASSWORD',
  'REDIS_SENTINEL_PASSWORD',
];
/** REDIS_CLUSTER_NODES is a list; each entry may be a URL. */
const URL_SETTINGS = ['DATABASE_URL', 'DATABASE_READ_URL', 'REDIS_URL', 'REDIS_CLUSTER_NODES'];

/**
 * The secrets that logs and the last-resort error print scrub, URLs' passwords included; from the
 * environment (before the options load, which may fail) or the loaded options alike.
 */
export function secretValues(settings: Partial<Record<string, unknown>>): string[] {
  const text = (name: string) => (typeof settings[name] === 'string' ? settings[name] : '');
  const urlPasswords = URL_SETTINGS.flatMap((name) => text(name).split(',')).flatMap((entry) => {
    const password = URL.parse(entry.trim())?.password;
    return password ? [decodeURIComponent(password)] : [];
  });
  return [...SECRET_SETTINGS.map(text).filter(Boolean), ...urlPasswords];
}

/** A setting named as a secret is one, also one added later (a webhook's secret, a key). */
const SECRET_NAME = /(KEY|TOKEN|PASSWORD|SECRET)$/;
/** A URL's password: `scheme://user:password@`. */
const URL_PASSWORD = /(\/\/[^/:@\s]*:)[^/@\s]+@/g;
export const MASK = '********';

/** A setting's value as it may be shown: a secret masked whole, a password inside URLs masked. */
export function maskedSetting(name: string, value: string): string {
  if (SECRET_SETTINGS.includes(name) || SECRET_NAME.test(name)) return MASK;
  return value.replace(URL_PASSWORD, `$1${MASK}@`);
}
