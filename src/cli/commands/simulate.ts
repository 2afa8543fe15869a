import { Command } from 'commander';
import type { SimulatorFlags } from '../../simulator/options.ts';
import { SIMULATOR_SETTINGS } from '../../simulator/settings.ts';

/** The simulated upstream as a process of its own, until SIGTERM/SIGINT; then what it served. */
export function simulateCommand(env: Record<string, string | undefined>): Command {
  const command = new Command('simulate').description(
    'run the simulated upstream (the three operations plus /v2/defi/protocols) with optional latency, errors and a rate limit',
  );
  for (const entry of SIMULATOR_SETTINGS) command.option(entry.flag, `${entry.description} [${entry.env}]`);
  return command.action(async (flags: SimulatorFlags) => {
    const [{ loadSimulatorOptions }, { startSimulator }] = await Promise.all([
      import('../../simulator/options.ts'),
      import('../../simulator/index.ts'),
    ]);
    const options = loadSimulatorOptions(flags, env);
    const simulator = await startSimulator(options);
    console.log(`simulated upstream listening on ${simulator.url}`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    const stats = simulator.stats();
    await simulator.close();
    console.log(JSON.stringify(stats));
  });
}
