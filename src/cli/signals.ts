import { EXIT } from './exit-codes.ts';

/**
 * A signal raised by SIGTERM or SIGINT, for a command to stop what it does and close what it opened;
 * a second signal while it stops ends the process at once (exit 130). `report` hears each signal.
 */
export function abortOnSignals(report: (signal: NodeJS.Signals, second: boolean) => void = () => {}): AbortSignal {
  const controller = new AbortController();
  const stop = (signal: NodeJS.Signals) => {
    const second = controller.signal.aborted;
    report(signal, second);
    if (second) process.exit(EXIT.interrupted);
    controller.abort();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return controller.signal;
}
