import { notFound } from '../../../core/errors.js';
import type { HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import type { PkiEngine } from './engine.js';
import type { KeyType } from './keys.js';
import { ROLE_FIELDS, roleFromFields } from './role.js';
import { DEFAULT_REF, pkiStore } from './storage.js';

/** Roles: what issue and sign check a request against. */
export function rolePaths(engine: PkiEngine): PathSpec[] {
  const list = (request: HandlerRequest): LogicalResponse => {
    const keys = pkiStore(request).roleNames();
    if (keys.length === 0) throw notFound();
    return { data: { keys } };
  };
  const read = (request: HandlerRequest): LogicalResponse => {
    const role = pkiStore(request).role(request.params.name as string);
    if (!role) throw notFound();
    return { data: { ...role } };
  };
  const write = (request: HandlerRequest): LogicalResponse | undefined => {
    const store = pkiStore(request);
    const { role, warnings } = roleFromFields(request.fields);
    // A role naming an issuer other than the default must name one that exists.
    if (role.issuer_ref.trim().toLowerCase() !== DEFAULT_REF) store.resolveIssuer(role.issuer_ref);
    store.putRole(request.params.name as string, role);
    // A role naming a key type is the moment to start pre-generating its keys (common sizes only).
    if (role.key_type !== 'any') engine.keys.warm({ type: role.key_type as KeyType, bits: role.key_bits });
    return warnings.length > 0 ? { data: null, warnings } : undefined;
  };
  const remove = (request: HandlerRequest) => {
    pkiStore(request).deleteRole(request.params.name as string);
    return undefined;
  };
  return [
    { pattern: 'roles', summary: 'List roles.', operations: { list } },
    {
      pattern: 'roles/:name',
      summary: 'Create, read, update and delete roles.',
      fields: { name: { type: 'string', description: 'role name', required: true }, ...ROLE_FIELDS },
      existenceCheck: (request) => pkiStore(request).hasRole(request.params.name as string),
      operations: { read, update: write, delete: remove },
    },
  ];
}
