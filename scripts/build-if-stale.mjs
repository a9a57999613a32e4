// Runs before `npm start`: rebuilds dist/ only when a source file is newer than the last build,
// so a fresh clone (built by `prepare`) starts at once and an edited checkout never runs stale code.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

const marker = 'dist/main.js';
if (!existsSync(marker) || newest('src') > statSync(marker).mtimeMs) {
  execSync('npm run --silent build', { stdio: 'inherit' });
}
