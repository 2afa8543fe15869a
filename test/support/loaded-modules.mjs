// Preloaded with `node --import` (NODE_OPTIONS): appends the URL of every module the process loads
// to the file CHAINTAP_LOADED_MODULES names, so that a test can see what a command loads to start.
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

registerHooks({
  load(url, context, nextLoad) {
    appendFileSync(process.env.CHAINTAP_LOADED_MODULES, `${url}\n`);
    return nextLoad(url, context);
  },
});
