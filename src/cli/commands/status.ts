import { Command } from 'commander';

export function statusCommand(): Command {
  return new Command('status')
    .description(
      'per dataset: last successful tick and its age; the quota and what the watchlist needs of it; queue depths; failures and schema drifts in the last 24 hours; exit 2 when jobs failed on authentication',
    )
    .option('--json', 'print the status as JSON (README: "JSON output")')
    .action(async (flags: { json?: boolean }) => {
      const { reportStatus } = await import('../status-report.ts');
      await reportStatus({ json: flags.json === true });
    });
}
