// Starts the sender thread from the TypeScript sources (bin/chaintap.mjs, vitest): a worker thread
// inherits neither tsx's nor vitest's module hooks, so it registers tsx before loading the entry.
// tsx's CommonJS hooks run in this thread (its ESM hooks would start one more thread, about 11 MB),
// so the modules the entry loads must do without top-level await and import.meta.
// The compiled code (dist/) starts sender-thread-entry.js directly and never loads this file.
require('tsx/cjs/api').register();
require('./sender-thread-entry.ts');
