// dist/main.js: runs the server bundle (dist/server.cjs) with V8's code cache. Node 20 has no
// compile cache for ES modules (module.enableCompileCache arrived in 22.1), but a vm.Script takes
// cached data: the bytecode of every function the last start-up compiled, so this start-up
// neither parses the 5 MB bundle again nor compiles those functions (about a quarter of the CPU
// time to ready). The cache is written once, after the server is ready, beside the bundle; its
// name carries the bundle's hash (scripts/build.mjs defines SERVER_BUNDLE_HASH), so a rebuilt
// bundle never meets an old cache, and V8 itself refuses a cache made by another Node or other
// flags (the start-up then compiles as usual and writes a new one). A cache that cannot be
// written (a read-only directory) only costs the next start-up its speed.
/* global SERVER_BUNDLE_HASH */
import { accessSync, constants, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { defaultHeapFlags, leanHeapFlags } from '../src/core/lean-heap.ts';

// Memory over speed for V8's heap sizing (src/core/lean-heap.ts says why), set once the server is
// ready: set before, they made V8 refuse Node's code cache of every built-in module loaded after
// them. The bundle's code cache below is made and read under V8's defaults as well.
const leanFlags = leanHeapFlags(process.execArgv);
const setFlags = (flags) => {
  for (const flag of flags) v8.setFlagsFromString(flag);
};

const directory = dirname(fileURLToPath(import.meta.url));
const bundle = join(directory, 'server.cjs');
const cacheFile = join(directory, `server.${SERVER_BUNDLE_HASH}.cache`);

let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  cachedData = undefined;
}
// Read as latin1: the build leaves the bundle pure ASCII (scripts/build.mjs, asciiOnly), which
// latin1 reads as the same characters, copying bytes; Node 20's UTF-8 decoder spends some 60 ms
// of CPU on the same 5.5 MB. The build also wrote it wrapped as a CommonJS module's function, so
// it is compiled as read, with no second copy of its text.
const script = new vm.Script(readFileSync(bundle, 'latin1'), { filename: bundle, cachedData });
const server = { exports: {} };
script.runInThisContext()(server.exports, createRequire(bundle), server, bundle, directory);

/** Written to a private name and renamed, so a start-up running beside this one reads a whole cache or none. */
function writeCache() {
  const partial = `${cacheFile}.${process.pid}`;
  try {
    // A read-only install is told apart first: making the cache costs tens of milliseconds.
    accessSync(directory, constants.W_OK);
    // Made under the flags the next start-up reads it under (the defaults; see above).
    setFlags(defaultHeapFlags(leanFlags));
    let cache;
    try {
      cache = script.createCachedData();
    } finally {
      setFlags(leanFlags);
    }
    writeFileSync(partial, cache);
    renameSync(partial, cacheFile);
  } catch {
    rmSync(partial, { force: true });
  }
}

// src/main.ts exports `started`: true once the server listens (the functions a start-up needs are
// compiled by then), false when it only printed (--help, --version); and `firstAnswered`, after
// which the cache is written again with the functions of the request path too (a process that
// ends before any request still leaves the first cache).
server.exports.started.then((listening) => {
  if (!listening) return;
  setFlags(leanFlags);
  if (cachedData === undefined || script.cachedDataRejected) {
    setImmediate(writeCache);
    server.exports.firstAnswered.then(() => setImmediate(writeCache));
  }
});
