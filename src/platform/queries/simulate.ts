import { FAILURE_MARKER } from '../../adapters/executor/simulated.js';
import { readSlug } from '../../adapters/executor/slug.js';

/** What a simulated `terraform query` found, and its log. */
export interface QueryOutcome {
  status: 'finished' | 'errored';
  log: string;
  resourcesDiscovered: number;
}

interface StateResource {
  mode?: string;
  type?: string;
  name?: string;
  instances?: { index_key?: string | number; attributes?: Record<string, unknown> }[];
}

const LIST_BLOCK = /^\s*list\s+"([^"]+)"\s+"([^"]+)"\s*\{/gm;

/**
 * `terraform query` without providers: the `list` blocks of the configuration's `.tfquery.hcl`
 * files are answered from the workspace's current state, so a list of `aws_instance` finds the
 * workspace's own `aws_instance` objects. A configuration with
 * `locals { understudy_simulate_failure = "query" }` errors, as a failing provider would.
 */
export async function simulateQuery(slug: Buffer, terraformVersion: string, stateText: string | null): Promise<QueryOutcome> {
  const { entries } = await readSlug(slug);
  const files = entries.filter((entry) => entry.type === 'file' && entry.content);
  const text = (path: string) => files.find((file) => file.path === path)?.content?.toString('utf8') ?? '';
  const header = `Terraform v${terraformVersion}\non linux_amd64\n\n`;
  const failing = files.some((file) => new RegExp(`${FAILURE_MARKER}\\s*=\\s*"query"`).test(file.content?.toString('utf8') ?? ''));
  if (failing) {
    return {
      status: 'errored',
      resourcesDiscovered: 0,
      log: `${header}Error: simulated query failure (local.${FAILURE_MARKER} = "query")\n`,
    };
  }
  const queryFiles = files.map((file) => file.path).filter((path) => path.endsWith('.tfquery.hcl') && !path.includes('/'));
  if (queryFiles.length === 0) {
    return {
      status: 'errored',
      resourcesDiscovered: 0,
      log: `${header}Error: No query files\n\nThe configuration has no .tfquery.hcl files with list blocks to run.\n`,
    };
  }
  const managed = readState(stateText);
  const lines: string[] = [];
  const empty: string[] = [];
  let found = 0;
  for (const path of queryFiles.sort()) {
    for (const [, type, name] of text(path).matchAll(LIST_BLOCK)) {
      const address = `list.${type}.${name}`;
      const matches = managed.filter((resource) => resource.type === type);
      const results = matches.flatMap((resource) =>
        (resource.instances ?? []).map((instance) => {
          const id = instance.attributes?.['id'];
          const key = instance.index_key === undefined ? '' : `[${JSON.stringify(instance.index_key)}]`;
          return `${address}\tid=${typeof id === 'string' ? id : `${resource.name}`}\t${resource.type}.${resource.name}${key}`;
        }),
      );
      if (results.length === 0) empty.push(address);
      lines.push(...results);
      found += results.length;
    }
  }
  const warning = empty.length > 0 ? `\nWarning: list block(s) [${empty.join(', ')}] returned 0 results.\n` : '';
  return { status: 'finished', resourcesDiscovered: found, log: `${header}${lines.map((line) => `${line}\n`).join('')}${warning}` };
}

function readState(stateText: string | null): StateResource[] {
  if (!stateText) return [];
  try {
    const parsed = JSON.parse(stateText) as { resources?: StateResource[] };
    return (parsed.resources ?? []).filter((resource) => resource.mode === 'managed');
  } catch {
    return [];
  }
}
