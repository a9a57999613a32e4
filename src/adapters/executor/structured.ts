/**
 * Structured run output: the machine-readable UI lines `terraform plan -json` / `apply -json`
 * print (one JSON object a line), and the redacted plan the CLI re-renders a remote plan from
 * (`GET /api/v2/plans/:id/json-output-redacted`: the plan's changes with sensitive values
 * removed, plus the provider schemas to draw them with).
 */

/** The version of the machine-readable UI the lines follow (`"ui"` of the version line). */
export const UI_VERSION = '1.2';

/** The format version of `terraform providers schema -json` the redacted plan carries when no schema document gives one. */
export const PROVIDER_FORMAT_VERSION = '1.0';

export interface UiResource {
  addr: string;
  module: string;
  resource: string;
  implied_provider: string;
  resource_type: string;
  resource_name: string;
  resource_key: string | number | null;
}

export interface UiChanges {
  add: number;
  change: number;
  import: number;
  remove: number;
  operation: 'plan' | 'apply' | 'destroy';
}

/** One line of the machine-readable UI: the common members, the type, and the type's own members. */
export function uiLine(timestamp: string, message: string, type: string, extra: Record<string, unknown> = {}): string {
  const line = { '@level': 'info', '@message': message, '@module': 'terraform.ui', '@timestamp': timestamp, ...extra, type };
  return `${JSON.stringify(line)}\n`;
}

/** The resource member of `planned_change` and of the apply hooks, for a root-module resource instance. */
export function uiResource(type: string, name: string, key?: string | number): UiResource {
  const addr = `${type}.${name}${key === undefined ? '' : typeof key === 'number' ? `[${key}]` : `[${JSON.stringify(key)}]`}`;
  return {
    addr,
    module: '',
    resource: addr,
    // The provider's local name as the configuration would imply it: the type's first word.
    implied_provider: type.split('_')[0] ?? type,
    resource_type: type,
    resource_name: name,
    resource_key: key ?? null,
  };
}

export const versionLine = (timestamp: string, version: string) =>
  uiLine(timestamp, `Terraform ${version}`, 'version', { terraform: version, ui: UI_VERSION });

/** `Plan: 1 to add, 0 to change, 0 to destroy.` or `Apply complete! Resources: …`, as the CLI words them. */
export function changeSummaryLine(timestamp: string, changes: UiChanges): string {
  const { add, change, remove } = changes;
  const imports = changes.import > 0 ? `${changes.import} ` : null;
  const message =
    changes.operation === 'plan'
      ? `Plan: ${imports ? `${imports}to import, ` : ''}${add} to add, ${change} to change, ${remove} to destroy.`
      : changes.operation === 'destroy'
        ? `Destroy complete! Resources: ${remove} destroyed.`
        : `Apply complete! Resources: ${imports ? `${imports}imported, ` : ''}${add} added, ${change} changed, ${remove} destroyed.`;
  return uiLine(timestamp, message, 'change_summary', { changes });
}

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A value with every part its sensitivity marker flags replaced by null: `marker` is `true` for a
 * wholly sensitive value, or an object/array of the same shape flagging parts of it.
 */
export function redact(value: unknown, marker: unknown): unknown {
  if (marker === true) return null;
  if (Array.isArray(value) && Array.isArray(marker)) return value.map((item, index) => redact(item, marker[index]));
  if (isObject(value) && isObject(marker))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redact(item, marker[key])]));
  return value;
}

function redactChange(change: unknown): unknown {
  if (!isObject(change)) return change;
  return {
    ...change,
    before: redact(change.before, change.before_sensitive),
    after: redact(change.after, change.after_sensitive),
  };
}

function redactResourceChanges(list: unknown): unknown[] {
  return (Array.isArray(list) ? list : []).map((entry: unknown) =>
    isObject(entry) ? { ...entry, change: redactChange(entry.change) } : entry,
  );
}

/**
 * The redacted plan the CLI decodes into its plan renderer's input: the plan's changes (drift,
 * relevant attributes and deferred changes when there are any), sensitive values nulled, and
 * the provider schemas of `terraform providers schema -json`. The plan's variables, prior state,
 * planned values and configuration (which hold values in the clear) are not part of it.
 */
export function redactedPlan(plan: unknown, schemas: unknown): JsonObject {
  const document = isObject(plan) ? plan : {};
  const schemaDocument = isObject(schemas) ? schemas : {};
  const outputs = isObject(document.output_changes) ? document.output_changes : {};
  const out: JsonObject = {
    plan_format_version: document.format_version ?? '1.2',
    output_changes: Object.fromEntries(Object.entries(outputs).map(([name, change]) => [name, redactChange(change)])),
    resource_changes: redactResourceChanges(document.resource_changes),
  };
  if (Array.isArray(document.resource_drift) && document.resource_drift.length > 0)
    out.resource_drift = redactResourceChanges(document.resource_drift);
  if (Array.isArray(document.relevant_attributes) && document.relevant_attributes.length > 0)
    out.relevant_attributes = document.relevant_attributes;
  if (Array.isArray(document.deferred_changes) && document.deferred_changes.length > 0)
    out.deferred_changes = document.deferred_changes.map((entry: unknown) =>
      isObject(entry) && isObject(entry.resource_change)
        ? { ...entry, resource_change: { ...entry.resource_change, change: redactChange(entry.resource_change.change) } }
        : entry,
    );
  out.provider_format_version = schemaDocument.format_version ?? PROVIDER_FORMAT_VERSION;
  out.provider_schemas = isObject(schemaDocument.provider_schemas) ? schemaDocument.provider_schemas : {};
  return out;
}
