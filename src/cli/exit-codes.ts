/** chaintap's exit codes, one table (README, "Exit codes"). */
export const EXIT = {
  /** Done: for run-once and backfill, every job succeeded; for probe, every answer can be read. */
  ok: 0,
  /** An error (bad input, a setting, a server that cannot be reached), a failed job, or what probe would quarantine. */
  failed: 1,
  /** The upstream rejects UPSTREAM_API_KEY (probe), or jobs failed on authentication (status). */
  authRejected: 2,
  /** The watchlist does not fit the quota (plan). */
  overBudget: 3,
  /** run-once: no job failed, but some did not run: their targets already had a job of a newer tick. */
  superseded: 4,
  /** A second SIGINT or SIGTERM while the command was stopping. */
  interrupted: 130,
} as const;
