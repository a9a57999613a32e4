import { createHash } from 'node:crypto';
import type { ResourceObject } from '../jsonapi/types.js';
import type { StateVersionMeta } from './repo.js';

/** One managed resource instance of a state, as the workspace resources list shows it. */
export interface StateResource {
  address: string;
  name: string;
  /** `root`, or the module path without its `module.` prefixes (`network.subnets`). */
  module: string;
  /** `namespace/type` of the provider (`hashicorp/aws`), from the state's provider address. */
  provider: string;
  /** The resource type (`aws_instance`). */
  providerType: string;
  /** The instance key of a `count` or `for_each` resource, as text; null without one. */
  nameIndex: string | null;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `provider["registry.terraform.io/hashicorp/aws"].west` → `hashicorp/aws`. */
function providerOf(address: unknown): string {
  if (typeof address !== 'string') return '';
  const quoted = /\["([^"]+)"\]/.exec(address)?.[1] ?? address;
  return quoted.split('/').slice(-2).join('/');
}

function keySuffix(key: unknown): { suffix: string; nameIndex: string | null } {
  if (typeof key === 'number') return { suffix: `[${key}]`, nameIndex: String(key) };
  if (typeof key === 'string') return { suffix: `[${JSON.stringify(key)}]`, nameIndex: key };
  return { suffix: '', nameIndex: null };
}

/**
 * The managed resource instances of a raw state (format 4), in the state's order; data sources
 * are not resources here, as `resource-count` does not count them. An unreadable state has none.
 */
export function resourcesOfState(raw: Buffer | null): StateResource[] {
  if (!raw) return [];
  let document: unknown;
  try {
    document = JSON.parse(raw.toString('utf8'));
  } catch {
    return [];
  }
  const resources = isObject(document) && Array.isArray(document['resources']) ? document['resources'] : [];
  const found: StateResource[] = [];
  for (const resource of resources) {
    if (!isObject(resource) || resource['mode'] === 'data') continue;
    const type = typeof resource['type'] === 'string' ? resource['type'] : '';
    const name = typeof resource['name'] === 'string' ? resource['name'] : '';
    const modulePath = typeof resource['module'] === 'string' ? resource['module'].replace(/(^|\.)module\./g, '$1') : '';
    const module = modulePath === '' ? 'root' : modulePath;
    const provider = providerOf(resource['provider']);
    const instances = Array.isArray(resource['instances']) ? resource['instances'] : [];
    for (const instance of instances) {
      const { suffix, nameIndex } = keySuffix(isObject(instance) ? instance['index_key'] : undefined);
      const address = `${modulePath === '' ? '' : `${modulePath}.`}${type}.${name}${suffix}`;
      found.push({ address, name, module, provider, providerType: type, nameIndex });
    }
  }
  return found;
}

/** A stable id per workspace and address, so pages agree with each other across requests. */
function resourceId(workspaceId: string, address: string): string {
  return `wsr-${createHash('sha256').update(`${workspaceId}\u0000${address}`).digest('base64url').slice(0, 16)}`;
}

export function workspaceResourceObject(resource: StateResource, version: StateVersionMeta): ResourceObject {
  // The real service dates resources by day; here each is dated by the version that holds it.
  const day = version.createdAt.toISOString().slice(0, 10);
  return {
    id: resourceId(version.workspaceId, resource.address),
    type: 'resources',
    attributes: {
      address: resource.address,
      name: resource.name,
      'created-at': day,
      'updated-at': day,
      module: resource.module,
      provider: resource.provider,
      'provider-type': resource.providerType,
      'modified-by-state-version-id': version.id,
      'name-index': resource.nameIndex,
    },
  };
}
