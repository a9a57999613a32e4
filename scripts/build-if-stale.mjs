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
// The fresh-store image (dist/fresh-store.db) is built from migrations/, which live outside src/.
const IMAGE = join(root, 'dist', 'fresh-store.db');
const stale = () => {
  if (!existsSync(BUNDLE) || !existsSync(IMAGE)) return true;
  const built = Math.min(statSync(BUNDLE).mtimeMs, statSync(IMAGE).mtimeMs);
  return newest(join(root, 'src')) > built || newest(join(root, 'migrations')) > built;
};
if (stale()) {
  execSync('npm run --silent build', { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
}
