import { spawn } from 'node:child_process';

/** Prints the process's peak RSS (kB) on standard error as it exits. */
const MAX_RSS_HOOK = `data:text/javascript,${encodeURIComponent(
  "process.on('exit', () => process.stderr.write(`maxrss_kb=${process.resourceUsage().maxRSS}\\n`))",
)}`;

export interface MeasuredRun {
  /** Wall time, start to exit. */
  seconds: number;
  /** The process's own peak RSS, read as it exits. */
  maxRssMb: number;
  stderr: string;
}

/** Runs `node [nodeArgs] args` with only the given settings; rejects unless it exits 0. */
export function runMeasuredNode(
  args: string[],
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<MeasuredRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...nodeArgs, `--import=${MAX_RSS_HOOK}`, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const rss = /maxrss_kb=(\d+)/.exec(stderr);
      if (code !== 0 || !rss) return reject(new Error(`${args.join(' ')} exited ${code}\n${stderr}`));
      resolve({ seconds: (performance.now() - started) / 1000, maxRssMb: Number(rss[1]) / 1024, stderr });
    });
  });
}
