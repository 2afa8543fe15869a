#!/usr/bin/env node
// Runs the TypeScript sources directly: Node 24 strips their types as it loads them, so
// `npx chaintap` works right after `npm ci` with nothing compiled. Container images run the
// compiled `dist/cli/main.js` instead.
//
// Nothing above the version check may need a newer Node than 20 (the oldest still shipped by
// distributions): no static import, no newer syntax. An older Node would otherwise fail on an import
// it lacks (enableCompileCache) or on the `.ts` sources, with an error that does not say why.
const NODE_MAJOR = 24; // package.json "engines" and .nvmrc say the same (test/cli/node-version.test.ts)

const running = process.versions.node;
if (Number(running.split('.')[0]) < NODE_MAJOR) {
  process.stderr.write(
    `chaintap needs Node.js ${NODE_MAJOR} or newer, and this is Node.js ${running} (${process.execPath}): ` +
      `install Node.js ${NODE_MAJOR} (\`nvm install ${NODE_MAJOR}\`, or https://nodejs.org/en/download) and run it again.\n`,
  );
  process.exit(1);
}

const { enableCompileCache } = await import('node:module');
// Node keeps the stripped and compiled modules in its cache directory (NODE_COMPILE_CACHE, else
// one under the system's temporary directory) and reuses them while a file is unchanged: a start
// then skips stripping the types and compiling (about 0.15 s of each start).
enableCompileCache();
await import('../src/cli/main.ts');
