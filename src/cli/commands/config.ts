import { Command } from 'commander';

/**
 * `chaintap config`: every setting's effective value (secrets masked) and where it came from.
 * `envFileNames`: the variables the `.env` file set (main.ts loads it before any command runs).
 */
export function configCommand(envFileNames: ReadonlySet<string>): Command {
  return new Command('config')
    .description(
      'every setting: its effective value (secrets and passwords in URLs masked) and where it came from: flag, environment, .env or default',
    )
    .option('--json', 'print the settings as JSON (README: "JSON output")')
    .option('--concurrency <n>', 'show UPSTREAM_CONCURRENCY as `worker --concurrency <n>` sets it')
    .action(async (flags: { json?: boolean; concurrency?: string }) => {
      const [{ effectiveSettings }, { formatTable }] = await Promise.all([
        import('../../config/effective-settings.ts'),
        import('../text-table.ts'),
      ]);
      const settings = effectiveSettings({ UPSTREAM_CONCURRENCY: flags.concurrency }, process.env, envFileNames);
      if (flags.json) {
        console.log(JSON.stringify(settings, null, 2));
        return;
      }
      const rows = settings.map(({ name, value, source }) => [name, value ?? '(unset)', source]);
      console.log(formatTable([['setting', 'value', 'source'], ...rows]).join('\n'));
    });
}
