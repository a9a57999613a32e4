// `npm run build`: bundles the server into one file, dist/server.cjs, with esbuild. Loading one file
// instead of some 400 modules is most of what makes start-up fast (see README, "Benchmarks" and "Development").
// dist/main.js (scripts/launcher.mjs) runs it with V8's code cache, which only a CommonJS script
// can use on Node 20: hence that format for the server, with import.meta.url standing for the
// bundle's own URL, and import() of the outside packages as require() (each has a CommonJS
// build), since a vm.Script's own import() needs an experimental flag.
// Type checking is separate (`npm run typecheck`, part of `npm test`). better-sqlite3's native
// addon is loaded from its own package directory (see DEPENDENCY_PATCHES); pkcs11js, which loads
// one the same way, stays outside the bundle; so does the HCL parser (@cdktf/hcl2json), which
// reads its WebAssembly file from its own directory.
// The cloud key SDKs, the database drivers and the mailer stay outside too, imported only when
// first used (a managed key, a database connection, a test mail), so start-up neither parses nor
// runs them. The
// PKCS#11 worker thread is a second entry point, dist/pkcs11-worker.js. The in-process API
// (`import { startUnderstudy } from 'understudy'`) is a third, dist/index.js, with its types in
// dist/index.d.ts: src/index.ts declares every type it exports itself, so its declarations are
// made from that one file (no whole-program type check in the build).
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { build } from 'esbuild';
import ts from 'typescript';

/**
 * The diagnostics channel a module loaded on first use announces its load on (`LAZY_MODULES`, and
 * Fastify's serializer compiler): a no-op with no subscriber, read by test/ops/lazy-modules.test.ts.
 */
const LAZY_MODULE_CHANNEL = JSON.stringify('understudy:lazy-module');
/** An import made by understudy's own source (the two plugins below leave dependencies' imports as they are). */
const FROM_SOURCE = /[\\/]src[\\/]/;

/**
 * The bundle with every non-ASCII character written as a \\u escape. esbuild escapes them in strings
 * and identifiers but leaves them in the comments it keeps (license notices, comments inside array
 * literals) and in regular expressions. The launcher reads the bundle as latin1, which copies bytes
 * and is right only for ASCII; a UTF-8 read of the same 5.5 MB costs Node 20 some 60 ms of CPU at
 * every start-up (twice that with one non-ASCII character, which also makes V8 hold the source at
 * twice the size). The escape reads the same in a comment, a string, a regular expression, an
 * identifier and a plain template; only the raw text of a tagged template would change, so a
 * character there stops the build.
 */
function asciiOnly(source) {
  const nonAscii = /[\u0080-\uffff]/;
  if (!nonAscii.test(source)) return source;
  const file = ts.createSourceFile('server.cjs', source, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const visit = (node) => {
    if (ts.isTaggedTemplateExpression(node)) {
      const text = source.slice(node.template.pos, node.template.end);
      if (nonAscii.test(text)) throw new Error(`dist/server.cjs: a non-ASCII character in a tagged template: ${text.slice(0, 80)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return source.replace(new RegExp(nonAscii, 'g'), (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Start-up work in two bundled dependencies, deferred to first use by exact edits to their source
 * as esbuild loads it (each edit must match once: a dependency that no longer reads as expected
 * stops the build rather than being bundled unchanged).
 * - find-my-way compiles a prefix matcher (a `new Function`) for every static node of the route
 *   tree as the node is made, and again at every split: some 35 ms of a start-up's CPU for about
 *   460 routes, most of which a short run never calls. Each static node now compiles its matcher
 *   on its first lookup: the placeholder compiles the same matcher from the node's prefix, puts it
 *   in the node's place and runs it, so every lookup after the first runs exactly the code it ran
 *   before. Lookups call `node.matchPrefix(path, i)` as a method, and a node's prefix changes only
 *   where its matcher is reset (split). The same for the function each route's handler gets to
 *   make its params object (another `new Function`, some 18 ms): made on the handler's first match,
 *   from the same parameter names, called as a method of the handler object. And the function
 *   that picks a handler by constraints (host, version: none of understudy's routes has one, so
 *   it never runs): compiled on its first call, from the constrainer the route was added with.
 * - Fastify finishes each route in a plugin `after` of its own (an avvio plugin with its queue,
 *   events, two timers and several ticks), which adds a `preReady` listener of its own: some
 *   460 of each at every start-up. Routes declared one after another in the same plugin, with
 *   nothing queued between them (no register, hook or after), now share one `after` that runs
 *   their finishing steps in declaration order, and one `preReady` listener that runs their
 *   ready steps in the same order: each step reads what it read before at the same point of the
 *   load, since nothing could run between their `after`s. A plugin's queue only grows while the
 *   plugin runs, so an unchanged length means nothing was queued in between.
 * - Fastify adds each not-found handler's two routes (its prefix, and its prefix's wildcard) to its
 *   not-found router for every HTTP method as the handler's plugin loads: some 400 insertions for
 *   understudy's six handlers, 2-3 ms of a start-up. They are kept, in order, and added by the
 *   first use of that router (the first request no route matches, or anything else that reads
 *   it), which then finds exactly the tree it found before; nothing else adds routes to it.
 * - Fastify loads its default serializer compiler (fast-json-stringify, with ajv) as it makes the
 *   root instance; it is first called for a route with a response schema in a scope without a
 *   serializer compiler of its own, which understudy's start-up has none of. A stand-in builds it
 *   on its first call, with the same arguments (and announces the load as LAZY_MODULES do).
 * - better-sqlite3's JavaScript is bundled (its 12 files were read, resolved and compiled at every
 *   start-up, outside the code cache: about 10 ms of CPU); its native addon stays in its package
 *   and is loaded from there, from build/Release where npm's install and rebuild put it, else
 *   through the `bindings` lookup the package itself uses, rooted at the package.
 * - Fastify loads node:http2 (about 9 ms) for the servers it makes itself; understudy gives it a
 *   server factory (src/server/server.ts), so http2 is loaded only if Fastify makes one. The same
 *   for node:https (with node:tls), and node:dns, which Fastify asks only to listen on a name
 *   such as localhost: each is loaded where it is used.
 */
const DEPENDENCY_PATCHES = [
  {
    file: /[\\/]find-my-way[\\/]lib[\\/]node\.js$/,
    edits: [
      [
        'this.matchPrefix = kind === NODE_TYPES.STATIC ? compilePrefixMatch(prefix) : null',
        'this.matchPrefix = kind === NODE_TYPES.STATIC ? matchPrefixOnFirstUse : null',
      ],
      ['this.matchPrefix = compilePrefixMatch(childPrefix)', 'this.matchPrefix = matchPrefixOnFirstUse'],
    ],
    append:
      'function matchPrefixOnFirstUse (path, i) {\n' +
      '  this.matchPrefix = compilePrefixMatch(this.prefix)\n' +
      '  return this.matchPrefix(path, i)\n' +
      '}\n',
  },
  {
    file: /[\\/]find-my-way[\\/]lib[\\/]handler-storage\.js$/,
    edits: [
      ['_createParamsObject: this._compileCreateParamsObject(params)', '_createParamsObject: createParamsObjectOnFirstUse'],
      [
        'this._compileGetHandlerMatchingConstraints(constrainer, constraints)',
        'this._constrainerOnFirstUse = constrainer\n      this._getHandlerMatchingConstraints = handlerMatchingConstraintsOnFirstUse',
      ],
    ],
    append:
      'function createParamsObjectOnFirstUse (param0, param1, param2, param3, extraParams) {\n' +
      '  this._createParamsObject = HandlerStorage.prototype._compileCreateParamsObject(this.params)\n' +
      '  return this._createParamsObject(param0, param1, param2, param3, extraParams)\n' +
      '}\n' +
      'function handlerMatchingConstraintsOnFirstUse (derivedConstraints) {\n' +
      '  this._compileGetHandlerMatchingConstraints(this._constrainerOnFirstUse)\n' +
      '  return this._getHandlerMatchingConstraints(derivedConstraints)\n' +
      '}\n',
  },
  {
    file: /[\\/]fastify[\\/]lib[\\/]route\.js$/,
    edits: [
      ['      this.after((notHandledErr, done) => {', '      afterConsecutiveRoutes(this, avvio, (notHandledErr, onPreReady) => {'],
      ["        avvio.once('preReady', () => {", '        onPreReady(() => {'],
      ['\n\n        done(notHandledErr)\n      })\n', '\n      })\n'],
    ],
    append:
      "const kConsecutiveRoutes = Symbol('understudy.consecutiveRoutes')\n" +
      'function afterConsecutiveRoutes (instance, avvio, finish) {\n' +
      '  const plugin = avvio._current[0]\n' +
      '  const batch = plugin[kConsecutiveRoutes]\n' +
      '  if (batch !== undefined && !batch.ran && batch.queued === plugin.queue.length()) {\n' +
      '    batch.finishers.push(finish)\n' +
      '    return\n' +
      '  }\n' +
      '  const next = { finishers: [finish], queued: 0, ran: false }\n' +
      '  plugin[kConsecutiveRoutes] = next\n' +
      '  instance.after((notHandledErr, done) => {\n' +
      '    next.ran = true\n' +
      '    const readyWork = []\n' +
      '    const onPreReady = (work) => { readyWork.push(work) }\n' +
      '    for (const finisher of next.finishers) finisher(notHandledErr, onPreReady)\n' +
      "    avvio.once('preReady', () => { for (const work of readyWork) work() })\n" +
      '    done(notHandledErr)\n' +
      '  })\n' +
      '  next.queued = plugin.queue.length()\n' +
      '}\n',
  },
  {
    file: /[\\/]fastify[\\/]lib[\\/]four-oh-four\.js$/,
    edits: [
      [
        '  return { router, setNotFoundHandler, setContext, arrange404 }',
        '  const addRoutes = routesAddedOnFirstUse(router)\n\n  return { router, setNotFoundHandler, setContext, arrange404 }',
      ],
      [
        "    router.all(prefix + (prefix.endsWith('/') ? '*' : '/*'), routeHandler, context)\n" +
          '    router.all(prefix, routeHandler, context)\n',
        "    addRoutes(prefix + (prefix.endsWith('/') ? '*' : '/*'), routeHandler, context)\n" +
          '    addRoutes(prefix, routeHandler, context)\n',
      ],
    ],
    append:
      'function routesAddedOnFirstUse (router) {\n' +
      '  let pending = []\n' +
      "  const uses = ['lookup', 'find', 'findRoute', 'hasRoute', 'compile', 'prettyPrint', 'off', 'reset']\n" +
      '  for (const name of uses) {\n' +
      '    router[name] = function (...args) {\n' +
      '      const routes = pending\n' +
      '      pending = null\n' +
      '      for (const use of uses) delete router[use]\n' +
      '      for (const [path, handler, store] of routes) router.all(path, handler, store)\n' +
      '      return this[name](...args)\n' +
      '    }\n' +
      '  }\n' +
      '  return (path, handler, store) => {\n' +
      '    if (pending === null) router.all(path, handler, store)\n' +
      '    else pending.push([path, handler, store])\n' +
      '  }\n' +
      '}\n',
  },
  {
    file: /[\\/]fastify[\\/]lib[\\/]schema-controller\.js$/,
    edits: [
      [
        "    const SerializerSelector = require('@fastify/fast-json-stringify-compiler')\n" +
          '    compilersFactory.buildSerializer = SerializerSelector()\n',
        '    compilersFactory.buildSerializer = serializerBuiltOnFirstUse()\n',
      ],
    ],
    append:
      'function serializerBuiltOnFirstUse () {\n' +
      '  let build\n' +
      '  return function (...args) {\n' +
      '    if (build === undefined) {\n' +
      "      const name = '@fastify/fast-json-stringify-compiler'\n" +
      `      require('node:diagnostics_channel').channel(${LAZY_MODULE_CHANNEL}).publish(name)\n` +
      "      build = require('@fastify/fast-json-stringify-compiler')()\n" +
      '    }\n' +
      '    return build.apply(this, args)\n' +
      '  }\n' +
      '}\n',
  },
  {
    file: /[\\/]better-sqlite3[\\/]lib[\\/]database\.js$/,
    edits: [["require('bindings')('better_sqlite3.node')", 'loadAddonFromPackage()']],
    append:
      'function loadAddonFromPackage () {\n' +
      "  const packageDirectory = path.dirname(require.resolve('better-sqlite3/package.json'))\n" +
      "  const built = path.join(packageDirectory, 'build', 'Release', 'better_sqlite3.node')\n" +
      '  if (fs.existsSync(built)) return require(built)\n' +
      "  const bindings = require(require.resolve('bindings', { paths: [packageDirectory] }))\n" +
      "  return bindings({ bindings: 'better_sqlite3.node', module_root: packageDirectory })\n" +
      '}\n',
  },
  {
    file: /[\\/]fastify[\\/]lib[\\/]server\.js$/,
    edits: [
      ["const http2 = require('node:http2')\n", ''],
      ['? http2.createSecureServer(', "? require('node:http2').createSecureServer("],
      [': http2.createServer(', ": require('node:http2').createServer("],
      ["const https = require('node:https')\n", ''],
      ['? https.createServer(', "? require('node:https').createServer("],
      ["const dns = require('node:dns')\n", ''],
      ['dns.lookup(', "require('node:dns').lookup("],
    ],
    append: '',
  },
];

const dependencyPatches = {
  name: 'dependency-patches',
  setup(builder) {
    for (const patch of DEPENDENCY_PATCHES) {
      builder.onLoad({ filter: patch.file }, (args) => {
        let source = readFileSync(args.path, 'utf8');
        for (const [before, after] of patch.edits) {
          if (source.split(before).length !== 2) throw new Error(`${args.path}: expected exactly one \`${before.trim()}\``);
          source = source.replace(before, () => after);
        }
        return { contents: `${source}\n${patch.append}`, loader: 'js' };
      });
    }
  },
};

/**
 * Modules the server imports that a start-up never uses (the certificate parsers, the version
 * ranges of the registry, tar and gzip, HTTPS): each import of one
 * from src/ gets a stand-in with the module's export names, each a getter that loads the module on
 * first use and answers its export. Loading them at start was some 10 ms of a start-up's CPU (the
 * ASN.1 schemas alone half of it) for requests a short run may never make. The stand-in is made
 * once per module; an import inside a dependency is left as it is. A stand-in announces its
 * module's load on the diagnostics channel `understudy:lazy-module` (a no-op with no subscriber),
 * so a test can tell which ones a start-up loaded (test/ops/lazy-modules.test.ts).
 */
const LAZY_MODULES = new Set([
  '@peculiar/asn1-schema',
  '@peculiar/asn1-x509',
  '@peculiar/asn1-csr',
  'semver',
  'tar-stream',
  'node:zlib',
  'node:https',
  'node:tls',
  '@fastify/ajv-compiler',
]);

const lazyModules = {
  name: 'lazy-modules',
  setup(builder) {
    builder.onResolve({ filter: /./ }, (args) => {
      if (!LAZY_MODULES.has(args.path) || args.namespace !== 'file' || !FROM_SOURCE.test(args.importer)) return undefined;
      return { path: args.path, namespace: 'lazy-module', pluginData: { resolveDir: args.resolveDir } };
    });
    builder.onLoad({ filter: /./, namespace: 'lazy-module' }, (args) => {
      const real = createRequire(join(args.pluginData.resolveDir, 'lazy.js'))(args.path);
      const name = JSON.stringify(args.path);
      const names = Object.getOwnPropertyNames(real).filter((name) => name !== '__esModule');
      const contents =
        'let loaded;\n' +
        `const loading = require('node:diagnostics_channel').channel(${LAZY_MODULE_CHANNEL});\n` +
        `const load = () => (loaded ??= (loading.publish(${name}), require(${name})));\n` +
        (real.__esModule ? "Object.defineProperty(exports, '__esModule', { value: true });\n" : '') +
        `for (const name of ${JSON.stringify(names)})\n` +
        '  Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });\n';
      return { contents, loader: 'js', resolveDir: args.pluginData.resolveDir };
    });
  },
};

/**
 * src/ imports TypeBox's `Type` (and types) from @fastify/type-provider-typebox, which re-exports
 * the `typebox` package; the provider's own module also imports ajv-formats (with ajv), TypeBox's
 * compiler and its value functions for a validator compiler understudy never installs. In the
 * bundle, src/'s imports of it read `typebox` itself, the same copy the provider re-exports (resolved
 * from the provider's directory), so a start-up no longer evaluates ajv for it (ajv loads with the
 * first ajv validation instead). The provider's other exports are not re-exported: a src/ import of
 * one fails the build.
 */
const typeboxThroughProvider = {
  name: 'typebox-through-provider',
  setup(builder) {
    builder.onResolve({ filter: /^@fastify\/type-provider-typebox$/ }, (args) => {
      if (args.namespace !== 'file' || !FROM_SOURCE.test(args.importer)) return undefined;
      const providerDirectory = dirname(createRequire(args.importer).resolve('@fastify/type-provider-typebox'));
      return { path: args.path, namespace: 'typebox-through-provider', pluginData: { resolveDir: providerDirectory } };
    });
    builder.onLoad({ filter: /./, namespace: 'typebox-through-provider' }, (args) => ({
      contents: "export * from 'typebox';\n",
      loader: 'js',
      resolveDir: args.pluginData.resolveDir,
    }));
  },
};

rmSync('dist', { recursive: true, force: true });
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: [
    // Only resolved, by the addon's loader (DEPENDENCY_PATCHES), to find the package's directory.
    'better-sqlite3/package.json',
    'pkcs11js',
    '@cdktf/hcl2json',
    '@aws-sdk/client-kms',
    '@azure/identity',
    '@azure/keyvault-keys',
    'pg',
    'mysql2',
    'nodemailer',
  ],
  sourcemap: true,
  logLevel: 'warning',
  plugins: [dependencyPatches, lazyModules, typeboxThroughProvider],
  // Bundled CommonJS packages call require() for Node's built-ins; an ES module has none of its own.
  banner: {
    js:
      "import { createRequire as __understudyCreateRequire } from 'node:module'; " +
      'const require = __understudyCreateRequire(import.meta.url);',
  },
};
await build({
  ...common,
  format: 'cjs',
  entryPoints: ['src/main.ts'],
  outfile: 'dist/server.cjs',
  supported: { 'dynamic-import': false },
  define: { 'import.meta.url': '__understudyBundleUrl' },
  banner: { js: "const __understudyBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
});
// Written already wrapped as Node wraps a CommonJS module (Module.wrap: the same text, on the same
// lines and columns, that V8 compiled before), so the launcher compiles the file as it reads it:
// wrapping at start-up made a second 5.5 MB string, which with the first brought the start-up's
// first full collection before ready.
writeFileSync('dist/server.cjs', Module.wrap(asciiOnly(readFileSync('dist/server.cjs', 'utf8'))));
// An empty store every migration has run on, in SQLite's serialized form: a fresh in-memory store
// starts from it instead of running the migrations (src/store/fresh-image.ts says why and when).
const freshStore = new Database(':memory:');
migrate(drizzle(freshStore), { migrationsFolder: 'migrations' });
writeFileSync('dist/fresh-store.db', freshStore.serialize());
freshStore.close();
const serverHash = createHash('sha256').update(readFileSync('dist/server.cjs')).digest('hex').slice(0, 16);
await build({
  ...common,
  entryPoints: ['scripts/launcher.mjs'],
  outfile: 'dist/main.js',
  sourcemap: false,
  banner: {},
  define: { SERVER_BUNDLE_HASH: JSON.stringify(serverHash) },
});
await build({ ...common, entryPoints: ['src/adapters/kms/pkcs11/worker.ts'], outfile: 'dist/pkcs11-worker.js' });
// Split, so the server half (src/in-process.ts and all it imports) is a chunk of its own, loaded
// only when startUnderstudy is first called; chunks sit beside index.js, where import.meta.url
// finds the worker and the package root as it does from the entry itself.
await build({ ...common, entryPoints: ['src/index.ts'], outdir: 'dist', splitting: true, chunkNames: 'chunk-[hash]' });
const declarations = ts.transpileDeclaration(readFileSync('src/index.ts', 'utf8'), {
  fileName: 'index.ts',
  compilerOptions: { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true },
});
const problems = declarations.diagnostics ?? [];
if (problems.length > 0)
  throw new Error(`src/index.ts: ${problems.map((problem) => ts.flattenDiagnosticMessageText(problem.messageText, ' ')).join('; ')}`);
writeFileSync('dist/index.d.ts', declarations.outputText);
