#!/usr/bin/env node
// Runs the TypeScript sources directly (through tsx), so `npx chaintap` works right after `npm ci`.
// Container images run the compiled `dist/cli/main.js` instead.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
