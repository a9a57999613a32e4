import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import {
  NO_CHANGES,
  NO_EXTRAS,
  withExtras,
  type ApplyOutcome,
  type ChangeSummary,
  type Executor,
  type LogSink,
  type PlanJob,
  type PhaseExtras,
  type PlanOutcome,
  type RunVariable,
} from './executor.js';
import { readSlug } from './slug.js';

/**
 * The documented way to make the simulated executor fail: a local named `understudy_simulate_failure`
 * whose value is `"plan"` or `"apply"` (README, "Runs").
 */
export const FAILURE_MARKER = 'understudy_simulate_failure';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Block = Record<string, Json>;
interface Parsed {
  resource?: Record<string, Record<string, Block[]>>;
  output?: Record<string, Block[]>;
  locals?: Block[];
  variable?: Record<string, Block[]>;
}

interface Instance {
  address: string;
  type: string;
  name: string;
  indexKey?: string | number;
  /** A digest of the block's arguments: a changed block is an update. */
  digest: string;
}

interface StateResource {
  mode: string;
  type: string;
  name: string;
  provider: string;
  instances: {
    index_key?: string | number;
    schema_version: number;
    attributes: { id: string; digest?: string };
    sensitive_attributes: [];
  }[];
}

interface StateFile {
  version: 4;
  terraform_version: string;
  serial: number;
  lineage: string;
  outputs: Record<string, { value: Json; type: string; sensitive?: boolean }>;
  resources: StateResource[];
  check_results: null;
}

const digest = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');
const providerOf = (type: string) =>
  type === 'terraform_data'
    ? 'provider["terraform.io/builtin/terraform"]'
    : `provider["registry.terraform.io/hashicorp/${type.split('_')[0]}"]`;
const uuidFrom = (seed: string) => {
  const hex = digest(seed);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
};
const addressOf = (type: string, name: string, key?: string | number) =>
  `${type}.${name}${key === undefined ? '' : typeof key === 'number' ? `[${key}]` : `[${JSON.stringify(key)}]`}`;

/** The instances a resource block declares: literal `count` and `for_each` expand; anything else is one instance. */
function instancesOf(type: string, name: string, block: Block): Instance[] {
  const { count, for_each: forEach, ...rest } = block;
  const blockDigest = digest(rest);
  const one = (indexKey?: string | number): Instance => ({
    address: addressOf(type, name, indexKey),
    type,
    name,
    digest: blockDigest,
    ...(indexKey === undefined ? {} : { indexKey }),
  });
  if (typeof count === 'number') return Array.from({ length: Math.max(0, Math.floor(count)) }, (_, index) => one(index));
  if (Array.isArray(forEach)) return forEach.filter((key): key is string => typeof key === 'string').map((key) => one(key));
  if (forEach !== null && typeof forEach === 'object') return Object.keys(forEach).map((key) => one(key));
  return [one()];
}

/** A value the simulation can know: literals, and whole `${var.x}` / `${local.x}` references; else the expression's text. */
function evaluate(value: Json, variables: Map<string, Json>, locals: Map<string, Json>): Json {
  if (typeof value !== 'string') return value;
  const reference = /^\$\{(var|local)\.([A-Za-z_][A-Za-z0-9_-]*)\}$/.exec(value);
  if (reference) return (reference[1] === 'var' ? variables : locals).get(reference[2]!) ?? value;
  return value;
}

const typeName = (value: Json) =>
  typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'bool' : 'dynamic';

export interface SimulatedExecutorOptions {
  /** The version written into the log header and the state. */
  version: string;
}

/**
 * Plans from the parsed configuration instead of running terraform: every resource block not in
 * state is created, every resource that left the configuration is destroyed, a block whose
 * arguments changed is updated; the apply writes a state holding them with deterministic ids and
 * the declared outputs. Instant and provider-free, so a test can walk every run state quickly.
 */
export class SimulatedExecutor implements Executor {
  readonly kind = 'simulated' as const;
  readonly runUser = null;

  constructor(private readonly options: SimulatedExecutorOptions) {}

  private header(): string {
    return `Terraform v${this.options.version}\non linux_amd64 (understudy simulated executor)\nInitializing plugins and modules...\n`;
  }

  /** Names (never values) of what the phase's hooks added to the environment, so a test can see it arrived. */
  private phaseEnvironment(extras: PhaseExtras): string {
    const names = extras.environment.map((variable) => variable.key);
    return names.length ? `Environment added for this phase: ${names.join(', ')}\n` : '';
  }

  async plan(job: PlanJob, log: LogSink, signal: AbortSignal, extras: PhaseExtras = NO_EXTRAS): Promise<PlanOutcome> {
    const failed = (status: 'errored' | 'canceled', line: string): PlanOutcome => {
      log(line);
      return { status, summary: NO_CHANGES, hasChanges: false, json: null };
    };
    log(this.header() + this.phaseEnvironment(extras));
    if (signal.aborted) return failed('canceled', '\nThe plan was canceled.\n');
    let parsed: Parsed[];
    try {
      parsed = await parseRoot(job.slug);
    } catch (error) {
      return failed('errored', `\nError: ${(error as Error).message}\n`);
    }
    const locals = new Map<string, Json>(parsed.flatMap((document) => (document.locals ?? []).flatMap((block) => Object.entries(block))));
    const failure = locals.get(FAILURE_MARKER);
    if (failure === 'plan') return failed('errored', `\nError: simulated plan failure (local.${FAILURE_MARKER} = "plan")\n`);
    const variables = variableValues(parsed, withExtras(job.variables, extras.variables));

    const wanted = job.isDestroy
      ? []
      : parsed.flatMap((document) =>
          Object.entries(document.resource ?? {}).flatMap(([type, byName]) =>
            Object.entries(byName).flatMap(([name, blocks]) => blocks.flatMap((block) => instancesOf(type, name, block))),
          ),
        );
    const previous = readState(job.state);
    const existing = new Map(
      (previous?.resources ?? []).flatMap((resource) =>
        resource.instances.map(
          (instance) => [addressOf(resource.type, resource.name, instance.index_key), { resource, instance }] as const,
        ),
      ),
    );
    const wantedAddresses = new Set(wanted.map((instance) => instance.address));
    const resourceChanges = [
      ...wanted.map((instance) => {
        const before = existing.get(instance.address);
        const actions = !before ? ['create'] : before.instance.attributes.digest === instance.digest ? ['no-op'] : ['update'];
        return { instance, actions };
      }),
      ...[...existing]
        .filter(([address]) => !wantedAddresses.has(address))
        .map(([address, { resource, instance }]) => ({
          instance: {
            address,
            type: resource.type,
            name: resource.name,
            digest: '',
            ...(instance.index_key === undefined ? {} : { indexKey: instance.index_key }),
          },
          actions: ['delete'],
        })),
    ];
    const summary: ChangeSummary = {
      additions: resourceChanges.filter((change) => change.actions[0] === 'create').length,
      changes: resourceChanges.filter((change) => change.actions[0] === 'update').length,
      destructions: resourceChanges.filter((change) => change.actions[0] === 'delete').length,
      imports: 0,
    };
    const outputs = job.isDestroy ? {} : outputValues(parsed, variables, locals);
    const outputChanged = Object.entries(outputs).some(
      ([name, output]) => JSON.stringify(previous?.outputs[name]?.value) !== JSON.stringify(output.value),
    );
    const outputsRemoved = Object.keys(previous?.outputs ?? {}).some((name) => !(name in outputs));
    const hasChanges = summary.additions + summary.changes + summary.destructions > 0 || outputChanged || outputsRemoved;

    const verbs: Record<string, string> = { create: 'will be created', update: 'will be updated in-place', delete: 'will be destroyed' };
    const lines = resourceChanges
      .filter((change) => change.actions[0] !== 'no-op')
      .map((change) => `  # ${change.instance.address} ${verbs[change.actions[0]!]}\n`);
    log(
      hasChanges
        ? `\nTerraform will perform the following actions:\n\n${lines.join('')}\n` +
            `Plan: ${summary.additions} to add, ${summary.changes} to change, ${summary.destructions} to destroy.\n`
        : '\nNo changes. Your infrastructure matches the configuration.\n',
    );
    const resourceJson = (instance: (typeof resourceChanges)[number]['instance']) => ({
      address: instance.address,
      mode: 'managed',
      type: instance.type,
      name: instance.name,
      ...(instance.indexKey === undefined ? {} : { index: instance.indexKey }),
      provider_name: providerOf(instance.type).replace(/^provider\["|"\]$/g, ''),
    });
    const planned = resourceChanges.filter((change) => change.actions[0] !== 'delete');
    // The top-level keys `terraform show -json` gives for a saved plan, but `timestamp` (which
    // would need the run's clock here) and those it leaves out when empty (drift, checks).
    const json = {
      format_version: '1.2',
      terraform_version: this.options.version,
      variables: Object.fromEntries([...variables].map(([name, value]) => [name, { value }])),
      planned_values: {
        outputs: Object.fromEntries(
          Object.entries(outputs).map(([name, output]) => [
            name,
            output.sensitive ? { sensitive: true } : { sensitive: false, value: output.value },
          ]),
        ),
        root_module: {
          resources: planned.map(({ instance }) => ({
            ...resourceJson(instance),
            schema_version: 0,
            values: { digest: instance.digest },
            sensitive_values: {},
          })),
        },
      },
      resource_changes: resourceChanges.map(({ instance, actions }) => ({
        ...resourceJson(instance),
        change: {
          actions,
          before: existing.get(instance.address)?.instance.attributes ?? null,
          after: actions[0] === 'delete' ? null : { digest: instance.digest },
        },
      })),
      output_changes: Object.fromEntries(
        Object.entries(outputs).map(([name, output]) => [
          name,
          {
            actions: [previous?.outputs[name] ? 'update' : 'create'],
            before: previous?.outputs[name]?.value ?? null,
            after: output.sensitive ? null : output.value,
            after_sensitive: output.sensitive,
          },
        ]),
      ),
      prior_state: priorState(previous, this.options.version),
      configuration: {
        provider_config: {},
        root_module: {
          resources: wanted.map((instance) => ({
            address: instance.address.replace(/\[[^\]]*\]$/, ''),
            mode: 'managed',
            type: instance.type,
            name: instance.name,
            provider_config_key: instance.type.split('_')[0],
            expressions: {},
            schema_version: 0,
          })),
          outputs: Object.fromEntries(
            Object.entries(outputs).map(([name, output]) => [name, { expression: {}, sensitive: output.sensitive }]),
          ),
        },
      },
      applyable: hasChanges,
      complete: true,
      errored: false,
    };

    return {
      status: 'finished',
      summary,
      hasChanges,
      json,
      prepared: {
        apply: async (applyLog: LogSink, applySignal: AbortSignal, applyExtras = NO_EXTRAS): Promise<ApplyOutcome> => {
          applyLog(this.header() + this.phaseEnvironment(applyExtras));
          if (applySignal.aborted) {
            applyLog('\nThe apply was canceled.\n');
            return { status: 'canceled', summary: NO_CHANGES, state: null };
          }
          if (failure === 'apply') {
            applyLog(`\nError: simulated apply failure (local.${FAILURE_MARKER} = "apply")\n`);
            return { status: 'errored', summary: NO_CHANGES, state: null };
          }
          for (const change of resourceChanges) {
            if (change.actions[0] === 'create')
              applyLog(`${change.instance.address}: Creation complete [id=${this.idOf(previous, job, change.instance.address)}]\n`);
            if (change.actions[0] === 'update') applyLog(`${change.instance.address}: Modifications complete\n`);
            if (change.actions[0] === 'delete') applyLog(`${change.instance.address}: Destruction complete\n`);
          }
          applyLog(
            `\nApply complete! Resources: ${summary.additions} added, ${summary.changes} changed, ${summary.destructions} destroyed.\n`,
          );
          return { status: 'finished', summary, state: JSON.stringify(this.nextState(previous, job, wanted, outputs)) };
        },
        dispose: async () => undefined,
      },
    };
  }

  private lineage(previous: StateFile | null, job: PlanJob): string {
    return previous?.lineage ?? uuidFrom(`lineage:${job.runId}`);
  }

  private idOf(previous: StateFile | null, job: PlanJob, address: string): string {
    return `sim-${digest(`${this.lineage(previous, job)}:${address}`).slice(0, 16)}`;
  }

  private nextState(
    previous: StateFile | null,
    job: PlanJob,
    wanted: Instance[],
    outputs: Record<string, { value: Json; sensitive: boolean }>,
  ): StateFile {
    const resources = new Map<string, StateResource>();
    for (const instance of wanted) {
      const key = `${instance.type}.${instance.name}`;
      const resource = resources.get(key) ?? {
        mode: 'managed',
        type: instance.type,
        name: instance.name,
        provider: providerOf(instance.type),
        instances: [],
      };
      resource.instances.push({
        ...(instance.indexKey === undefined ? {} : { index_key: instance.indexKey }),
        schema_version: 0,
        attributes: { id: this.idOf(previous, job, instance.address), digest: instance.digest },
        sensitive_attributes: [],
      });
      resources.set(key, resource);
    }
    return {
      version: 4,
      terraform_version: this.options.version,
      serial: (previous?.serial ?? 0) + 1,
      lineage: this.lineage(previous, job),
      outputs: Object.fromEntries(
        Object.entries(outputs).map(([name, output]) => [
          name,
          { value: output.value, type: typeName(output.value), ...(output.sensitive ? { sensitive: true } : {}) },
        ]),
      ),
      // Terraform's own order: by type, then name.
      resources: [...resources.values()].sort((a, b) => a.type.localeCompare(b.type) || a.name.localeCompare(b.name)),
      check_results: null,
    };
  }

  async close(): Promise<void> {}
}

/** The root module's `.tf` files, parsed; a file that does not parse fails the plan with the parser's words. */
async function parseRoot(slug: Buffer): Promise<Parsed[]> {
  // A refused slug's message says why (SlugRejected); it becomes the plan's error line.
  const { entries } = await readSlug(slug);
  // Loaded on first use: the parser unpacks its WebAssembly when imported.
  const { parse } = await import('@cdktf/hcl2json');
  const documents: Parsed[] = [];
  for (const entry of entries) {
    if (entry.type !== 'file' || !entry.path.endsWith('.tf') || posix.dirname(entry.path) !== '.') continue;
    try {
      documents.push((await parse(entry.path, entry.content?.toString('utf8') ?? '')) as Parsed);
    } catch (error) {
      throw new Error(`${entry.path} is not valid HCL: ${(error as Error).message.replace(/^parse config: /, '')}`, { cause: error });
    }
  }
  return documents;
}

function variableValues(parsed: Parsed[], given: RunVariable[]): Map<string, Json> {
  const values = new Map<string, Json>();
  for (const document of parsed)
    for (const [name, blocks] of Object.entries(document.variable ?? {})) {
      const fallback = blocks[0]?.default;
      if (fallback !== undefined) values.set(name, fallback);
    }
  for (const variable of given) {
    let value: Json = variable.value;
    if (variable.hcl) {
      try {
        value = JSON.parse(variable.value) as Json;
      } catch {
        value = variable.value;
      }
    }
    values.set(variable.key, value);
  }
  return values;
}

function outputValues(parsed: Parsed[], variables: Map<string, Json>, locals: Map<string, Json>) {
  const outputs: Record<string, { value: Json; sensitive: boolean }> = {};
  for (const document of parsed)
    for (const [name, blocks] of Object.entries(document.output ?? {})) {
      const block = blocks[0] ?? {};
      outputs[name] = { value: evaluate(block.value ?? null, variables, locals), sensitive: block.sensitive === true };
    }
  return outputs;
}

/** The state a plan started from, as `prior_state` in the plan's JSON (the `terraform show -json` form). */
function priorState(state: StateFile | null, version: string) {
  if (!state) return { format_version: '1.0', terraform_version: version, values: { outputs: {}, root_module: {} } };
  return {
    format_version: '1.0',
    terraform_version: state.terraform_version,
    values: {
      outputs: Object.fromEntries(
        Object.entries(state.outputs).map(([name, output]) => [name, { sensitive: output.sensitive ?? false, value: output.value }]),
      ),
      root_module: {
        resources: state.resources.flatMap((resource) =>
          resource.instances.map((instance) => ({
            address: addressOf(resource.type, resource.name, instance.index_key),
            mode: resource.mode,
            type: resource.type,
            name: resource.name,
            ...(instance.index_key === undefined ? {} : { index: instance.index_key }),
            provider_name: resource.provider.replace(/^provider\["|"\]$/g, ''),
            schema_version: instance.schema_version,
            values: instance.attributes,
            sensitive_values: {},
          })),
        ),
      },
    },
  };
}

function readState(text: string | null): StateFile | null {
  if (text === null) return null;
  try {
    const state = JSON.parse(text) as Partial<StateFile>;
    return { ...state, outputs: state.outputs ?? {}, resources: state.resources ?? [] } as StateFile;
  } catch {
    return null;
  }
}
