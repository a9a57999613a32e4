import { unprocessable } from '../../core/errors.js';

/** One root output as the state file records it. */
export interface ParsedOutput {
  name: string;
  sensitive: boolean;
  /** The cty type in its JSON form (`"string"`, `["list","string"]`, …). */
  detailedType: unknown;
  value: unknown;
}

/** What the service reads out of a raw state file. */
export interface ParsedState {
  serial: number | null;
  lineage: string | null;
  formatVersion: number | null;
  terraformVersion: string | null;
  resourceCount: number;
  outputs: ParsedOutput[];
}

/**
 * How deep a state document may nest (the document itself is level 1, so an output's value may
 * hold 125 levels). Terraform's own states stay far below it; deeper documents are refused,
 * because every later step (storing, rendering, serialising) walks them recursively.
 */
export const MAX_STATE_DEPTH = 128;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads a terraform state file (format 4). Anything that is not a JSON object is refused with a
 * 422 on `pointer`; unknown or missing members read as absent, as older formats lack some.
 * `resource-count` counts managed resource instances, data sources excluded.
 */
export function parseState(raw: Buffer, pointer: string): ParsedState {
  let document: unknown;
  try {
    document = JSON.parse(raw.toString('utf8'));
  } catch {
    throw unprocessable('the state is not valid JSON', pointer);
  }
  if (!isObject(document)) throw unprocessable('the state must be a JSON object', pointer);
  if (nestedDeeperThan(document, MAX_STATE_DEPTH)) {
    throw unprocessable(`the state is nested deeper than ${MAX_STATE_DEPTH} levels`, pointer);
  }
  const resources = Array.isArray(document['resources']) ? document['resources'] : [];
  let resourceCount = 0;
  for (const resource of resources) {
    if (!isObject(resource) || resource['mode'] === 'data') continue;
    resourceCount += Array.isArray(resource['instances']) ? resource['instances'].length : 0;
  }
  const outputs = isObject(document['outputs']) ? document['outputs'] : {};
  return {
    serial: typeof document['serial'] === 'number' ? document['serial'] : null,
    lineage: typeof document['lineage'] === 'string' ? document['lineage'] : null,
    formatVersion: typeof document['version'] === 'number' ? document['version'] : null,
    terraformVersion: typeof document['terraform_version'] === 'string' ? document['terraform_version'] : null,
    resourceCount,
    outputs: Object.entries(outputs).map(([name, output]) => ({
      name,
      sensitive: isObject(output) && output['sensitive'] === true,
      detailedType: isObject(output) ? (output['type'] ?? null) : null,
      value: isObject(output) ? (output['value'] ?? null) : null,
    })),
  };
}

/** The output's coarse `type` attribute, as the real API names it from the detailed type. */
export function outputTypeName(detailedType: unknown): string {
  const head: unknown = Array.isArray(detailedType) ? detailedType[0] : detailedType;
  switch (head) {
    case 'string':
    case 'number':
      return head;
    case 'bool':
      return 'boolean';
    case 'list':
    case 'set':
    case 'tuple':
      return 'array';
    case 'map':
    case 'object':
      return 'hash';
    default:
      return 'string';
  }
}

/** Whether `value` nests objects or arrays more than `limit` levels deep (walked without recursion). */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}
