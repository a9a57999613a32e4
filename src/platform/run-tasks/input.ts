import { unprocessable } from '../../core/errors.js';
import type { EnforcementLevel, GlobalConfiguration, RunTaskStage } from '../../store/tables.js';
import { Attributes, relationshipId } from '../jsonapi/body.js';
import { Attr, resourceBody } from '../jsonapi/schemas.js';

/** The run task create and update body (`enabled` may also be "true"/"false", as some clients send). */
export const RUN_TASK_BODY = resourceBody(['tasks'], {
  attributes: {
    name: Attr.string('letters, numbers, "-" and "_"'),
    url: Attr.string(),
    description: Attr.string(),
    category: Attr.string('always "task"'),
    'hmac-key': Attr.string('never returned'),
    'global-configuration': Attr.object('enabled, stages, enforcement-level'),
  },
  relationships: ['agent-pool'],
});

export const STAGES: readonly RunTaskStage[] = ['pre_plan', 'post_plan', 'pre_apply', 'post_apply'];
export const ENFORCEMENT_LEVELS: readonly EnforcementLevel[] = ['advisory', 'mandatory'];
const TASK_NAME = { pattern: /^[A-Za-z0-9_-]+$/, patternText: 'may contain only letters, numbers, "-" and "_"', maxLength: 255 };
const POINTER = '/data/attributes';

export interface RunTaskInput {
  name?: string;
  url?: string;
  description?: string | null;
  category?: string;
  hmacKey?: string | null;
  enabled?: boolean;
  globalConfiguration?: Partial<GlobalConfiguration>;
  /** null detaches the pool. */
  agentPoolId?: string | null;
}

export function enforcementLevel(attributes: Attributes, name: string, pointer: string): EnforcementLevel | undefined {
  const level = attributes.string(name) ?? undefined;
  if (level !== undefined && !ENFORCEMENT_LEVELS.includes(level as EnforcementLevel)) {
    throw unprocessable(`${name} must be advisory or mandatory`, pointer);
  }
  return level as EnforcementLevel | undefined;
}

export function stageList(attributes: Attributes, pointer: string): RunTaskStage[] | undefined {
  const stages = attributes.stringArray('stages');
  if (stages === undefined) return undefined;
  if (stages.length === 0) throw unprocessable('stages must name at least one stage', pointer);
  stages.forEach((stage, index) => {
    if (!STAGES.includes(stage as RunTaskStage)) throw unprocessable(`stages must be among ${STAGES.join(', ')}`, `${pointer}/${index}`);
  });
  return [...new Set(stages)] as RunTaskStage[];
}

function globalConfiguration(attributes: Attributes): Partial<GlobalConfiguration> | undefined {
  const nested = attributes.nested('global-configuration');
  if (!nested) return undefined;
  const pointer = `${POINTER}/global-configuration`;
  const result: Partial<GlobalConfiguration> = {};
  const enabled = nested.boolean('enabled', { acceptStrings: true });
  if (enabled !== undefined) result.enabled = enabled;
  const stages = stageList(nested, `${pointer}/stages`);
  if (stages !== undefined) result.stages = stages;
  const level = enforcementLevel(nested, 'enforcement-level', `${pointer}/enforcement-level`);
  if (level !== undefined) result['enforcement-level'] = level;
  return result;
}

function httpUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw unprocessable('url must be an http or https URL', `${POINTER}/url`);
  }
  return value;
}

/**
 * Reads a run task body. `hmac_key` (the spec's example) is the same key as `hmac-key`, and
 * `enabled` may be a boolean or the strings "true"/"false" (the example writes a string).
 */
export function readRunTaskInput(raw: Record<string, unknown>, relationships: Record<string, unknown>, creating: boolean): RunTaskInput {
  const attributes = new Attributes(raw);
  const input: RunTaskInput = {};
  const name = attributes.string('name', { required: creating, ...TASK_NAME }) ?? undefined;
  if (name !== undefined) input.name = name;
  const url = httpUrl(attributes.string('url', { required: creating }) ?? undefined);
  if (url !== undefined) input.url = url;
  const description = attributes.string('description', { nullable: true, maxLength: 5000 });
  if (description !== undefined) input.description = description;
  const category = attributes.string('category', { required: creating }) ?? undefined;
  if (category !== undefined && category !== 'task') throw unprocessable('category must be "task"', `${POINTER}/category`);
  if (category !== undefined) input.category = category;
  const hmacName = attributes.has('hmac-key') || !attributes.has('hmac_key') ? 'hmac-key' : 'hmac_key';
  const hmacKey = attributes.string(hmacName, { nullable: true });
  if (hmacKey !== undefined) input.hmacKey = hmacKey === '' ? null : hmacKey;
  const enabled = attributes.boolean('enabled', { acceptStrings: true });
  if (enabled !== undefined) input.enabled = enabled;
  const global = globalConfiguration(attributes);
  if (global !== undefined) input.globalConfiguration = global;
  const pool = relationshipId(relationships, 'agent-pool', 'agent-pools');
  if (pool !== undefined) input.agentPoolId = pool;
  return input;
}
