// Preloaded (`node --import`) where the machine has no Node older than 24: this process then says it
// is Node 20.20.2, to chaintap's bin and to npm's engine check alike (test/cli/node-version.test.ts).
Object.defineProperty(process, 'version', { value: 'v20.20.2' });
Object.defineProperty(process.versions, 'node', { value: '20.20.2' });
