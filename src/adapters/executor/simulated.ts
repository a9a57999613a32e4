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
import { changeSummaryLine, redactedPlan, uiLine, uiResource, versionLine } from './structured.js';

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

/** A JSON value's type as the machine-readable UI writes it (cty's JSON type form). */
export function ctyType(value: Json): unknown {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'bool';
  if (value === null) return 'dynamic';
  if (Array.isArray(value)) return ['tuple', value.map(ctyType)];
  return ['object', Object.fromEntries(Object.entries(value).map(([key, item]) => [key, ctyType(item)]))];
}

/** The schema the simulated resources are drawn with: every type has the two attributes the simulation gives it. */
function simulatedSchemas(types: string[]) {
  const attribute = (description: string) => ({ type: 'string', description, description_kind: 'plain', computed: true });
  const providers: Record<string, { provider: { version: number; block: object }; resource_schemas: Record<string, object> }> = {};
  for (const type of [...new Set(types)].sort()) {
    const name = providerOf(type).replace(/^provider\["|"\]$/g, '');
    const provider = (providers[name] ??= { provider: { version: 0, block: { description_kind: 'plain' } }, resource_schemas: {} });
    provider.resource_schemas[type] = {
      version: 0,
      block: {
        attributes: {
          digest: attribute("A digest of the block's arguments (understudy's simulated executor)."),
          id: attribute('The simulated id.'),
        },
        description_kind: 'plain',
      },
    };
  }
  return { format_version: '1.0', provider_schemas: providers };
}

const ACTION_VERBS: Record<string, [start: string, done: string]> = {
  create: ['Creating...', 'Creation complete'],
  update: ['Modifying...', 'Modifications complete'],
  delete: ['Destroying...', 'Destruction complete'],
};

export interface SimulatedExecutorOptions {
  /** The version written into the log header and the state. */
  version: string;
  /** The time the structured log lines carry (`@timestamp`); the wall clock when absent. */
  now?: () => Date;
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

  private timestamp(): string {
    return (this.options.now?.() ?? new Date()).toISOString();
  }

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
    const changed = resourceChanges.filter((change) => change.actions[0] !== 'no-op');
    const lines = changed.map((change) => `  # ${change.instance.address} ${verbs[change.actions[0]!]}\n`);
    const resourceOf = (instance: (typeof resourceChanges)[number]['instance']) =>
      uiResource(instance.type, instance.name, instance.indexKey);
    if (job.structured) {
      const now = this.timestamp();
      log(
        versionLine(now, this.options.version) +
          changed
            .map(({ instance, actions }) =>
              uiLine(now, `${instance.address}: Plan to ${actions[0]}`, 'planned_change', {
                change: {
                  resource: resourceOf(instance),
                  action: actions[0],
                  ...(actions[0] === 'delete' && !job.isDestroy ? { reason: 'delete_because_no_resource_config' } : {}),
                },
              }),
            )
            .join('') +
          changeSummaryLine(now, {
            add: summary.additions,
            change: summary.changes,
            import: 0,
            remove: summary.destructions,
            operation: 'plan',
          }) +
          (Object.keys(outputs).length + Object.keys(previous?.outputs ?? {}).filter((name) => !(name in outputs)).length > 0
            ? this.planOutputsLine(now, outputs, previous)
            : ''),
      );
    } else
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
      resource_changes: resourceChanges.map(({ instance, actions }) => {
        const before = existing.get(instance.address)?.instance.attributes ?? null;
        return {
          ...resourceJson(instance),
          change: {
            actions,
            before,
            after:
              actions[0] === 'delete'
                ? null
                : actions[0] === 'create'
                  ? { digest: instance.digest }
                  : { ...before, digest: instance.digest },
            after_unknown: actions[0] === 'create' ? { id: true } : {},
            before_sensitive: before === null ? false : {},
            after_sensitive: actions[0] === 'delete' ? false : {},
          },
        };
      }),
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
      redactedJson: redactedPlan(json, simulatedSchemas(resourceChanges.map((change) => change.instance.type))),
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
          const state = this.nextState(previous, job, wanted, outputs);
          if (job.structured) applyLog(this.structuredApply(job, changed, previous, summary, state));
          else {
            for (const change of resourceChanges) {
              if (change.actions[0] === 'create')
                applyLog(`${change.instance.address}: Creation complete [id=${this.idOf(previous, job, change.instance.address)}]\n`);
              if (change.actions[0] === 'update') applyLog(`${change.instance.address}: Modifications complete\n`);
              if (change.actions[0] === 'delete') applyLog(`${change.instance.address}: Destruction complete\n`);
            }
            applyLog(
              `\nApply complete! Resources: ${summary.additions} added, ${summary.changes} changed, ${summary.destructions} destroyed.\n`,
            );
          }
          return { status: 'finished', summary, state: JSON.stringify(state) };
        },
        dispose: async () => undefined,
      },
    };
  }

  /** The plan's `outputs` line: each output's action (no values: the plan is drawn from its redacted JSON). */
  private planOutputsLine(now: string, outputs: Record<string, { value: Json; sensitive: boolean }>, previous: StateFile | null): string {
    const entries: [string, { sensitive: boolean; action: string }][] = [
      ...Object.entries(outputs).map(([name, output]): [string, { sensitive: boolean; action: string }] => {
        const before = previous?.outputs[name];
        const action = !before ? 'create' : JSON.stringify(before.value) === JSON.stringify(output.value) ? 'noop' : 'update';
        return [name, { sensitive: output.sensitive, action }];
      }),
      ...Object.entries(previous?.outputs ?? {})
        .filter(([name]) => !(name in outputs))
        .map(([name, output]): [string, { sensitive: boolean; action: string }] => [
          name,
          { sensitive: output.sensitive ?? false, action: 'delete' },
        ]),
    ];
    return uiLine(now, `Outputs: ${entries.length}`, 'outputs', { outputs: Object.fromEntries(entries) });
  }

  /** The apply's machine-readable lines: the version, each change's start and end, the summary, the outputs. */
  private structuredApply(
    job: PlanJob,
    changed: { instance: { address: string; type: string; name: string; indexKey?: string | number }; actions: string[] }[],
    previous: StateFile | null,
    summary: ChangeSummary,
    state: StateFile,
  ): string {
    const now = this.timestamp();
    const lines = [versionLine(now, this.options.version)];
    for (const { instance, actions } of changed) {
      const action = actions[0]!;
      const resource = uiResource(instance.type, instance.name, instance.indexKey);
      lines.push(uiLine(now, `${instance.address}: Plan to ${action}`, 'planned_change', { change: { resource, action } }));
    }
    for (const { instance, actions } of changed) {
      const action = actions[0]!;
      const [start, done] = ACTION_VERBS[action]!;
      const resource = uiResource(instance.type, instance.name, instance.indexKey);
      const id = this.idOf(previous, job, instance.address);
      const known = action === 'create' ? {} : { id_key: 'id', id_value: id };
      lines.push(
        uiLine(now, `${instance.address}: ${start}${action === 'create' ? '' : ` [id=${id}]`}`, 'apply_start', {
          hook: { resource, action, ...known },
        }),
        uiLine(now, `${instance.address}: ${done} after 0s${action === 'delete' ? '' : ` [id=${id}]`}`, 'apply_complete', {
          hook: { resource, action, ...(action === 'delete' ? {} : { id_key: 'id', id_value: id }), elapsed_seconds: 0 },
        }),
      );
    }
    lines.push(
      changeSummaryLine(now, {
        add: summary.additions,
        change: summary.changes,
        import: 0,
        remove: summary.destructions,
        operation: job.isDestroy ? 'destroy' : 'apply',
      }),
    );
    const outputs = Object.entries(state.outputs);
    if (outputs.length > 0)
      lines.push(
        uiLine(now, `Outputs: ${outputs.length}`, 'outputs', {
          outputs: Object.fromEntries(
            outputs.map(([name, output]) => [
              name,
              { sensitive: output.sensitive ?? false, type: ctyType(output.value), ...(output.sensitive ? {} : { value: output.value }) },
            ]),
          ),
        }),
      );
    return lines.join('');
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
