/** A share of the answer budget, held from an answer's decoding until its job is done with it. */
export interface AnswerLease {
  /** Gives the share back; calling it again does nothing. */
  release(): void;
}

/**
 * The heap a process lets the answers it holds take together (memory-budget.ts): an answer's share
 * is what it may cost, from its decoding to its job's commit, so that answers too large to be held
 * together wait for one another instead of filling the heap. Shares go in the order asked; one larger
 * than the whole budget takes the whole of it.
 */
export interface AnswerBudget {
  /** Resolves once `weight` is free; rejects with the signal's reason if it is aborted first. */
  acquire(weight: number, signal?: AbortSignal): Promise<AnswerLease>;
  /** The weight held now. */
  held(): number;
}

export function createAnswerBudget(capacity: number): AnswerBudget {
  let held = 0;
  const waiting: { weight: number; grant: () => void }[] = [];

  const lease = (weight: number): AnswerLease => {
    held += weight;
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        held -= weight;
        grantWaiting();
      },
    };
  };
  // First come, first served: a large share is not passed over for ever by smaller ones.
  const grantWaiting = () => {
    while (waiting.length > 0 && held + waiting[0]!.weight <= capacity) waiting.shift()!.grant();
  };

  return {
    acquire(weight, signal) {
      const share = Math.min(Math.max(0, weight), capacity);
      if (waiting.length === 0 && held + share <= capacity) return Promise.resolve(lease(share));
      signal?.throwIfAborted();
      return new Promise((resolve, reject) => {
        const waiter = {
          weight: share,
          grant: () => {
            signal?.removeEventListener('abort', abort);
            resolve(lease(share));
          },
        };
        const abort = () => {
          waiting.splice(waiting.indexOf(waiter), 1);
          reject(signal!.reason);
          grantWaiting();
        };
        signal?.addEventListener('abort', abort, { once: true });
        waiting.push(waiter);
      });
    },
    held: () => held,
  };
}
