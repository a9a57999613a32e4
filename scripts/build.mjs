// `npm run build`: bundles the server into one file, dist/main.js, with esbuild. Loading one file
// instead of some 400 modules is most of what makes start-up fast (see README, "Benchmarks" and "Development").
// Type checking is separate (`npm run typecheck`, part of `npm test`). better-sqlite3 stays
// outside the bundle: it loads a native addon from its own package directory, as does pkcs11js; so
// does the HCL parser (@cdktf/hcl2json), which reads its WebAssembly file from its own directory.
// The cloud key SDKs, the database drivers and the mailer stay outside too, imported only when
// first used (a managed key, a database connection, a test mail), so start-up neither parses nor
// runs them. The
// PKCS#11 worker thread is a second entry point, dist/pkcs11-worker.js. The in-process API
// (`import { startUnderstudy } from 'understudy'`) is a third, dist/index.js, with its types in
// dist/index.d.ts: src/index.ts declares every type it exports itself, so its declarations are
// made from that one file (no whole-program type check in the build).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import ts from 'typescript';

rmSync('dist', { recursive: true, force: true });
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: [
    'better-sqlite3',
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
  // Bundled CommonJS packages call require() for Node's built-ins; an ES module has none of its own.
  banner: {
    js:
      "import { createRequire as __understudyCreateRequire } from 'node:module'; " +
      'const require = __understudyCreateRequire(import.meta.url);',
  },
};
await build({ ...common, entryPoints: ['src/main.ts'], outfile: 'dist/main.js' });
await build({ ...common, entryPoints: ['src/adapters/kms/pkcs11/worker.ts'], outfile: 'dist/pkcs11-worker.js' });
await build({ ...common, entryPoints: ['src/index.ts'], outfile: 'dist/index.js' });
const declarations = ts.transpileDeclaration(readFileSync('src/index.ts', 'utf8'), {
  fileName: 'index.ts',
  compilerOptions: { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true },
});
const problems = declarations.diagnostics ?? [];
if (problems.length > 0)
  throw new Error(`src/index.ts: ${problems.map((problem) => ts.flattenDiagnosticMessageText(problem.messageText, ' ')).join('; ')}`);
writeFileSync('dist/index.d.ts', declarations.outputText);
