import { VARIABLES } from './config.js';
import { VERSION } from './core/version.js';

/** `--help`: what understudy is, how to start it, and every variable it reads, one line each. */
export function usage(): string {
  const width = Math.max(...VARIABLES.map((variable) => variable.name.length));
  const lines = VARIABLES.map((variable) => {
    const fallback = variable.default === null ? 'unset' : `default ${variable.default}`;
    const aliases = variable.aliases?.length ? `; also ${variable.aliases.join(', ')}` : '';
    return `  ${variable.name.padEnd(width)}  ${variable.meaning} (${fallback}${aliases})`;
  });
  return [
    `understudy ${VERSION}: a local stand-in for the platform API (/api/v2) and the secrets API (/v1)`,
    '',
    'Usage: understudy [--help | --version]',
    '',
    'Configured by environment variables (and a .env file in the working directory):',
    ...lines,
    '',
  ].join('\n');
}

export type CliAction = { kind: 'start' } | { kind: 'print'; text: string } | { kind: 'refuse'; text: string };

/** What the command line asks for: print usage or the version and stop, or start the server. */
export function cliAction(args: readonly string[]): CliAction {
  if (args.includes('--help') || args.includes('-h')) return { kind: 'print', text: usage() };
  if (args.includes('--version') || args.includes('-v')) return { kind: 'print', text: `${VERSION}\n` };
  const unknown = args[0];
  if (unknown !== undefined) return { kind: 'refuse', text: `understudy: unknown argument ${JSON.stringify(unknown)}; try --help\n` };
  return { kind: 'start' };
}
