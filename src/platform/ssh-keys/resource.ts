import type { ResourceObject } from '../jsonapi/types.js';
import type { SshKeyRow } from './repo.js';

/** The key's `value` is deliberately absent: it is accepted on write and never returned. */
export function sshKeyResource(key: SshKeyRow, organizationName: string): ResourceObject {
  return {
    id: key.id,
    type: 'ssh-keys',
    attributes: { name: key.name },
    relationships: { organization: { data: { id: organizationName, type: 'organizations' } } },
    links: { self: `/api/v2/ssh-keys/${key.id}` },
  };
}
