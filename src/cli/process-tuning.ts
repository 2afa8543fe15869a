import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import type { Command } from 'commander';
import { loadOptions, type Options } from '../config/options.ts';
import type { Logger } from '../runtime/logger.ts';

/**
 * Every process-wide setting chaintap changes, decided here once at start and only for the commands
 * that call the upstream (docs/operations.md, "Process tuning"; PROCESS_TUNING=false: none). Both
 * serve the sender thread (src/upstream/sender-thread.ts), so that requests leave at their start
 * times on a busy machine. Library modules change nothing: a program that builds a client keeps its
 * process as it is.
 */

/** The commands that send upstream requests from a sender thread (openUpstreamClient). */
const UPSTREAM_COMMANDS = new Set(['worker', 'start', 'run-once', 'backfill', 'demo', 'probe']);

/** Applies the tuning for `command` (the command being run, or a subcommand of it), before it runs. */
export function tuneProcess(command: Command, env: Record<string, string | undefined>): void {
  if (!UPSTREAM_COMMANDS.has(topLevelName(command))) return;
  const options = loadOptions({}, env);
  if (!options.PROCESS_TUNING) return;
  // Young-generation collections run on the collecting thread alone, in every thread of the process
  // (V8 has one set of flags): in parallel, the sender thread's collections waited for V8's helper
  // threads, which run below it busy with the main thread's collections. V8 reads the flag at each
  // collection, so setting it at run time takes effect.
  setFlagsFromString('--no-parallel-scavenge');
}

/**
 * The sender thread's `onStarted` under these options: the step-down below it, or none
 * (PROCESS_TUNING=false, UPSTREAM_SENDER_PRIORITY=0, or not Linux).
 */
export function senderThreadStepDown(options: Options, logger: Logger): ((threadId: number) => void) | undefined {
  const levels = options.PROCESS_TUNING ? options.UPSTREAM_SENDER_PRIORITY : 0;
  if (levels <= 0 || process.platform !== 'linux') return undefined;
  return (threadId) => stepDownBelowSenderThread(threadId, levels, logger);
}

function topLevelName(command: Command): string {
  let topLevel = command;
  while (topLevel.parent?.parent) topLevel = topLevel.parent;
  return topLevel.name();
}

/**
 * When a sender thread has started: every other thread of the process (the
 * main thread: JSON, zod, Postgres; V8's and libuv's helpers: garbage collection, compression; work
 * that can wait a few milliseconds) steps down `levels` nice levels below it, so that it
 * gets a CPU first. On Linux a thread's nice value is its own, a new thread starts with its creator's
 * (threads the main thread starts later inherit the step), and raising a nice value needs no privilege.
 */
function stepDownBelowSenderThread(senderThreadId: number, levels: number, logger: Logger): void {
  try {
    const target = Math.min(19, getPriority(senderThreadId) + levels);
    for (const threadId of readdirSync('/proc/self/task').map(Number)) {
      if (threadId === senderThreadId) continue;
      try {
        if (getPriority(threadId) < target) setPriority(threadId, target);
      } catch {
        // The thread ended meanwhile.
      }
    }
  } catch (error) {
    // The sender thread has already ended (a command that stopped at once): nothing to do.
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return;
    logger.warn(
      { component: 'upstream', err: String(error) },
      'could not lower the other threads below the upstream sender thread',
    );
  }
}
