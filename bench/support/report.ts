import { execFileSync } from 'node:child_process';
import { appendFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { extraSettings } from './worker-processes.ts';

/** A measured figure, with the target when it has one. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  target?: { op: '>=' | '<=' | '=='; value: number };
}

export interface ScenarioResult {
  scenario: string;
  /** The figures, ratios (those with targets) first. */
  figures: Figure[];
  /** What a reader must know to read the figures (settings, sample sizes). */
  notes: string[];
}

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  os: string;
  node: string;
  postgres: string;
  redis: string;
}

export function meetsTarget(figure: Figure): boolean | null {
  if (!figure.target) return null;
  const { op, value } = figure.target;
  if (op === '>=') return figure.value >= value;
  if (op === '<=') return figure.value <= value;
  return figure.value === value;
}

export function machineOf(postgresVersion: string, redisVersion: string): Machine {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    postgres: postgresVersion,
    redis: redisVersion,
  };
}

/** The commit the run measured, with "+dirty" when the working tree had changes. */
export function commitOf(): string {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  try {
    const head = git('rev-parse', '--short=12', 'HEAD');
    const dirty =
      git(
        'status',
        '--porcelain',
        '--untracked-files=no',
        '--',
        'src',
        'bench',
        'migrations',
        'package.json',
        ':(exclude)bench/results',
      ) !== '';
    return dirty ? `${head}+dirty` : head;
  } catch {
    return 'unknown';
  }
}

const RESULTS = fileURLToPath(new URL('../results/results.jsonl', import.meta.url));

/** Appends one JSON object per scenario to bench/results/results.jsonl. */
export async function appendResult(
  result: ScenarioResult,
  context: {
    machine: Machine;
    commit: string;
    date: string;
    seconds: number;
    loadAverage: { before: number[]; after: number[] };
  },
): Promise<void> {
  await mkdir(new URL('../results/', import.meta.url), { recursive: true });
  const record = {
    scenario: result.scenario,
    date: context.date,
    commit: context.commit,
    machine: context.machine,
    seconds: Math.round(context.seconds * 10) / 10,
    // 1, 5 and 15 minute load averages: other work on the machine shows here.
    loadAverage: context.loadAverage,
    // Settings given to the chaintap processes through BENCH_CHAINTAP_ENV (a comparison run).
    ...(Object.keys(extraSettings()).length > 0 ? { settings: extraSettings() } : {}),
    figures: result.figures.map((figure) => ({ ...figure, met: meetsTarget(figure) })),
    notes: result.notes,
  };
  await appendFile(RESULTS, `${JSON.stringify(record)}\n`);
}

function formatValue(figure: Figure): string {
  const { value, unit } = figure;
  // A count stays whole; a ratio keeps its decimals also when it is 1 (its target is fractional).
  const whole = Number.isInteger(value) && (!figure.target || Number.isInteger(figure.target.value));
  const digits = Math.abs(value) >= 100 || whole ? 0 : Math.abs(value) >= 10 ? 1 : Math.abs(value) >= 1 ? 2 : 3;
  const number = value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return unit ? `${number} ${unit}` : number;
}

function formatTarget(figure: Figure): string {
  if (!figure.target) return '';
  const op = figure.target.op === '==' ? '=' : figure.target.op === '>=' ? '≥' : '≤';
  return `${op} ${formatValue({ ...figure, value: figure.target.value })}`;
}

/** The terminal table: one line per figure, with the target and whether it was met. */
export function formatTable(results: ScenarioResult[]): string {
  const rows = results.flatMap((result) =>
    result.figures.map((figure) => {
      const met = meetsTarget(figure);
      return [
        result.scenario,
        figure.name,
        formatValue(figure),
        formatTarget(figure),
        met === null ? '' : met ? 'ok' : 'MISSED',
      ];
    }),
  );
  const header = ['scenario', 'figure', 'measured', 'target', ''];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 2 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
