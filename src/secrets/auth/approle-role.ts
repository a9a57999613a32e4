import { ApiError, badRequest } from '../../core/errors.js';
import type { FieldSpec, HandlerRequest } from '../framework/types.js';
import type { TokenSettings } from './token-settings.js';

/** A role as stored; its secret IDs live under `secret_id/<role>/`, found by their hash. */
export interface RoleEntry {
  name: string;
  roleId: string;
  bindSecretId: boolean;
  secretIdBoundCidrs: string[];
  secretIdNumUses: number;
  secretIdTtl: number;
  localSecretIds: boolean;
  settings: TokenSettings;
}

export const ROLE_NAME = /^\w(?:[\w.@-]*\w)?$/;
export const ROLE_NAME_FIELD: Record<string, FieldSpec> = {
  role_name: { type: 'string', description: 'Name of the role (in the URL; case-insensitive).' },
};

/** The storage key of a role; names are case-insensitive, as in the real service. */
export function roleKey(request: HandlerRequest): string {
  const name = (request.params['role_name'] ?? '').toLowerCase();
  if (!ROLE_NAME.test(name)) throw badRequest(`invalid role name "${request.params['role_name'] ?? ''}"`);
  return `role/${name}`;
}

/** The role named in the URL; a 404 with the real wording when there is none. */
export function existingRole(request: HandlerRequest): RoleEntry {
  const role = request.storage.get<RoleEntry>(roleKey(request));
  const name = request.params['role_name']?.toLowerCase() ?? '';
  if (!role) throw new ApiError(404, 'role does not exist', { messages: [`role "${name}" does not exist`] });
  return role;
}
