#!/usr/bin/env node
// Runs the TypeScript sources directly: Node 24 strips their types as it loads them, so
// `npx chaintap` works right after `npm ci` with nothing compiled. Container images run the
// compiled `dist/cli/main.js` instead.
import { enableCompileCache } from 'node:module';

// Node keeps the stripped and compiled modules in its cache directory (NODE_COMPILE_CACHE, else
// one under the system's temporary directory) and reuses them while a file is unchanged: a start
// then skips stripping the types and compiling (about 0.15 s of each start).
enableCompileCache();
await import('../src/cli/main.ts');
