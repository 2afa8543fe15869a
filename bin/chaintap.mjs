#!/usr/bin/env node
// Runs the TypeScript sources directly: Node 24 strips their types as it loads them, so
// `npx chaintap` works right after `npm ci` with nothing compiled. Container images run the
// compiled `dist/cli/main.js` instead.
await import('../src/cli/main.ts');
