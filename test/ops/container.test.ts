import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { DCLinter } from 'dclint';
import { validate } from 'dockerfile-utils';
import { build as esbuild } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { VARIABLES } from '../../src/config.js';
import { cleanEnv, ROOT } from './process.js';

// No Docker engine runs on the development or CI machines, so the container files are checked
// offline: a Dockerfile linter, compose's own validation, and the properties users rely on.

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

interface Instruction {
  keyword: string;
  args: string;
}

/** Instructions with continuation lines joined and comments dropped, split into stages at FROM. */
function stages(text: string): Instruction[][] {
  const joined = text.replace(/\\\n/g, ' ');
  const result: Instruction[][] = [];
  for (const line of joined.split('\n')) {
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!match || line.trimStart().startsWith('#')) continue;
    const instruction = { keyword: (match[1] as string).toUpperCase(), args: (match[2] as string).replace(/\s+/g, ' ').trim() };
    if (instruction.keyword === 'FROM') result.push([]);
    result[result.length - 1]?.push(instruction);
  }
  return result;
}

const [build = [], runtime = []] = stages(dockerfile);
const args = (stage: Instruction[], keyword: string) =>
  stage.filter((instruction) => instruction.keyword === keyword).map((instruction) => instruction.args);

describe('Dockerfile', () => {
  it('passes the linter, which does catch a broken file', () => {
    // LSP severities: 1 error, 2 warning.
    const problems = validate(dockerfile).filter((diagnostic) => (diagnostic.severity ?? 1) <= 2);
    const text = (message: string | { value: string }) => (typeof message === 'string' ? message : message.value);
    expect(problems.map((problem) => `line ${problem.range.start.line + 1}: ${text(problem.message)}`)).toEqual([]);
    expect(validate('FROM node:20-bookworm-slim\nEXPOS 8200\n').length).toBeGreaterThan(0);
  });

  it('builds in one Node 22 slim stage (the README recommends 22) and runs in another', () => {
    expect(args(build, 'FROM')).toEqual(['node:22-bookworm-slim AS build']);
    expect(args(runtime, 'FROM')[0]).toMatch(/^node:22-bookworm-slim\b/);
    expect(stages(dockerfile)).toHaveLength(2);
    const buildSteps = args(build, 'RUN').join(' && ');
    expect(buildSteps).toMatch(/npm ci\b/);
    expect(buildSteps).toMatch(/npm run build\b/);
    expect(buildSteps).toMatch(/npm prune --omit=dev\b/);
  });

  it('installs apt packages non-interactively, without extras, and cleans the lists', () => {
    for (const run of [...args(build, 'RUN'), ...args(runtime, 'RUN')].filter((step) => step.includes('apt-get install'))) {
      expect(run).toMatch(/apt-get install -y --no-install-recommends/);
      expect(run).toContain('rm -rf /var/lib/apt/lists/*');
    }
  });

  it('runs unprivileged on 0.0.0.0:8200 with its store in a volume, a health check and node as PID 1', () => {
    const user = args(runtime, 'USER');
    expect(user).toHaveLength(1);
    expect(user[0]).not.toMatch(/^(root|0)(:|$)/);
    expect(args(runtime, 'WORKDIR')).toEqual(['/app']);
    expect(args(runtime, 'ENV').join(' ')).toMatch(/\bUNDERSTUDY_HOST=0\.0\.0\.0\b/);
    expect(args(runtime, 'EXPOSE')).toEqual(['8200']);
    expect(args(runtime, 'VOLUME')).toEqual(['/app/data']);
    const healthcheck = args(runtime, 'HEALTHCHECK');
    expect(healthcheck).toHaveLength(1);
    expect(healthcheck[0]).toContain('/_emulator/health');
    expect(healthcheck[0]).toMatch(/CMD \["node"/); // the slim image has no curl or wget
    expect(args(runtime, 'CMD')).toEqual(['["node", "dist/main.js"]']);
  });

  it('ships what the server reads at run time', () => {
    const copied = args(runtime, 'COPY').map((copy) => copy.split(' ').at(-1));
    for (const needed of ['./package.json', './node_modules', './dist', './migrations', './fixtures']) expect(copied).toContain(needed);
  });

  it('has every build-context file it copies let through by .dockerignore', () => {
    const allowed = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('!'))
      .map((line) => line.slice(1).trim());
    const fromContext = [...args(build, 'COPY'), ...args(runtime, 'COPY')]
      .filter((copy) => !copy.startsWith('--from'))
      .flatMap((copy) =>
        copy
          .split(' ')
          .filter((word) => !word.startsWith('--'))
          .slice(0, -1),
      );
    expect(fromContext.length).toBeGreaterThan(0);
    for (const source of fromContext) expect(allowed, source).toContain(source);
  });
});

/**
 * What `npm run build` reads from the project: scripts/build.mjs itself, every project file its
 * esbuild entry points bundle (found by esbuild, packages left out), the files it reads directly,
 * package.json and its lock (npm), and tsconfig.json (esbuild reads it when present).
 */
async function filesTheBuildReads(): Promise<string[]> {
  const script = readFileSync(join(ROOT, 'scripts/build.mjs'), 'utf8');
  const entryPoints = [...script.matchAll(/entryPoints: \['([^']+)'\]/g)].map((match) => match[1] as string);
  const readDirectly = [...script.matchAll(/readFileSync\('([^']+)'/g)].map((match) => match[1] as string);
  const result = await esbuild({
    absWorkingDir: ROOT,
    entryPoints,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outdir: 'unwritten',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const bundled = Object.keys(result.metafile.inputs);
  return [...new Set(['scripts/build.mjs', 'package.json', 'package-lock.json', 'tsconfig.json', ...readDirectly, ...bundled])].filter(
    (file) => !file.startsWith('dist/'),
  );
}

/** Where a build-stage `COPY` from the context puts each context path under WORKDIR /app. */
function copiedPaths(stage: Instruction[]): Map<string, string> {
  const placed = new Map<string, string>();
  for (const copy of args(stage, 'COPY').filter((line) => !line.startsWith('--from'))) {
    const words = copy.split(' ').filter((word) => !word.startsWith('--'));
    const destination = words.at(-1) as string;
    const sources = words.slice(0, -1);
    for (const source of sources) {
      const target = sources.length > 1 || destination.endsWith('/') ? posix.join(destination, posix.basename(source)) : destination;
      placed.set(source, posix.normalize(target));
    }
  }
  return placed;
}

describe('the image build', () => {
  it('copies every file npm run build reads into the build stage, and .dockerignore lets each through', async () => {
    const needed = await filesTheBuildReads();
    expect(needed).toEqual(expect.arrayContaining(['scripts/launcher.mjs', 'src/main.ts', 'src/index.ts']));
    const placed = copiedPaths(build);
    const allowed = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('!'))
      .map((line) => line.slice(1).trim());
    const within = (file: string, path: string) => file === path || file.startsWith(`${path}/`);
    const missing = needed.filter((file) => {
      const source = [...placed.keys()].find((path) => within(file, path));
      const lands = source === undefined ? undefined : posix.normalize(`${placed.get(source)}${file.slice(source.length)}`);
      return lands !== posix.normalize(file) || !allowed.some((path) => within(file, path));
    });
    expect(missing).toEqual([]);
  });

  it('is checked against a build that leaves a file out', () => {
    const without = stages(dockerfile.replace('scripts/launcher.mjs ', ''))[0] ?? [];
    expect([...copiedPaths(without).keys()]).not.toContain('scripts/launcher.mjs');
    expect([...copiedPaths(build).keys()]).toContain('scripts/launcher.mjs');
  });
});

const composeFile = join(ROOT, 'docker-compose.yml');
const hasDockerCompose = spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0;
if (!hasDockerCompose) {
  const consequence = process.env.CI
    ? 'failing, because CI is set'
    : 'skipping its checks (.ci/run installs it: apt-get install docker-compose)';
  console.warn(`docker-compose is not installed: ${consequence}`);
}

describe('docker-compose.yml', () => {
  it('passes dclint without errors', () => {
    const linter = new DCLinter({ rules: {}, quiet: true, debug: false, exclude: [] });
    const [result] = linter.lintFiles([composeFile], false);
    // dclint's bundled types use extensionless imports that NodeNext cannot follow, so its message
    // type arrives unresolved; this is the part used.
    const messages = (result?.messages ?? []) as { type: string; rule: string; message: string }[];
    expect(messages.filter((message) => message.type === 'error').map((message) => `${message.rule}: ${message.message}`)).toEqual([]);
  });

  // Compose's own validation is the authority; it only skips where the tool is missing and CI is unset.
  it.skipIf(!hasDockerCompose && !process.env.CI)('is valid for docker-compose, and the server waits for healthy databases', () => {
    expect(hasDockerCompose, 'docker-compose is not installed (.ci/run installs it)').toBe(true);
    const run = (...extra: string[]) =>
      spawnSync('docker-compose', ['-f', composeFile, 'config', ...extra], { cwd: ROOT, encoding: 'utf8' });
    const quiet = run('-q');
    expect(quiet.stderr).toBe('');
    expect(quiet.status).toBe(0);
    expect(run('--services').stdout.split('\n').filter(Boolean).sort()).toEqual(['mariadb', 'postgres', 'understudy']);
    expect(run('--volumes').stdout.split('\n').filter(Boolean).sort()).toEqual(['mariadb-data', 'postgres-data', 'understudy-data']);

    const normalized = run().stdout;
    const dependsOn = /^ {4}depends_on:\n((?: {6}.*\n)+)/m.exec(normalized)?.[1] ?? '';
    expect(dependsOn).toMatch(/ {6}mariadb:\n {8}condition: service_healthy/);
    expect(dependsOn).toMatch(/ {6}postgres:\n {8}condition: service_healthy/);
    expect(normalized.match(/^ {4}healthcheck:$/gm)).toHaveLength(3);
  });

  it.skipIf(!hasDockerCompose && !process.env.CI)('passes every UNDERSTUDY_* variable through and mounts a seed folder', () => {
    const config = (env: Record<string, string>) =>
      spawnSync('docker-compose', ['-f', composeFile, 'config'], { cwd: ROOT, encoding: 'utf8', env: { ...cleanEnv(), ...env } }).stdout;
    const defaults = config({});
    for (const variable of VARIABLES) expect(defaults, variable.name).toContain(`${variable.name}:`);
    expect(defaults).toMatch(/UNDERSTUDY_SEED: \/app\/seed\/default\.json/);
    expect(defaults).toContain(`${join(ROOT, 'fixtures')}:/app/seed:ro`);
    const custom = config({
      UNDERSTUDY_SEED: '/app/seed/ci.json',
      SEED_DIR: '/tmp/my-seeds',
      UNDERSTUDY_EDITION: 'hosted',
      UNDERSTUDY_CORS_ORIGINS: '*',
    });
    expect(custom).toMatch(/UNDERSTUDY_SEED: \/app\/seed\/ci\.json/);
    expect(custom).toMatch(/UNDERSTUDY_EDITION: hosted/);
    expect(custom).toMatch(/UNDERSTUDY_CORS_ORIGINS: '\*'/);
    expect(custom).toContain('/tmp/my-seeds:/app/seed:ro');
  });
});
