// Runs before `npm test` and at the top of `npm start`: rebuilds dist/ only when a source file is
// newer than the last build, so a fresh clone (built by `prepare`) starts at once and an edited
// checkout never runs stale code.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

export const BUNDLE = join(root, 'dist', 'main.js');
if (!existsSync(BUNDLE) || newest(join(root, 'src')) > statSync(BUNDLE).mtimeMs) {
  execSync('npm run --silent build', { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
}
