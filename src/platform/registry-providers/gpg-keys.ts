import type { Clock } from '../../core/clock.js';
import { ApiError, unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import { Permissions } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { findOrganizationByName } from '../organizations/repo.js';
import { readPublicKey } from './openpgp.js';
import * as repo from './repo.js';
import type { GpgKeyRow } from './repo.js';

export interface LoadedKey {
  key: GpgKeyRow;
  namespace: string;
}

/** The real service's answer for a namespace the caller cannot manage keys in (go-tfe matches the text). */
const notAuthorized = () => new ApiError(403, 'namespace not authorized', { title: 'forbidden', pointer: '/data/attributes/namespace' });

/**
 * GPG keys of the private registry (`/api/registry/private/v2/gpg-keys`). A key belongs to a
 * namespace, which is an organization; adding, moving and deleting one takes Manage Providers
 * there, reading one membership. The key id comes from the key itself, never from the caller.
 */
export class GpgKeyService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  private namespace(principal: Principal, name: string, right: 'read' | 'manage-providers'): OrganizationRow | null {
    const organization = findOrganizationByName(this.db, name);
    return organization && new Permissions(this.db).can(principal, organization, right) ? organization : null;
  }

  /** Keys of the namespaces named (those the caller can read; the others add nothing). */
  list(principal: Principal, namespaces: string[], offset: number, limit: number) {
    const readable = namespaces.flatMap((name) => this.namespace(principal, name, 'read') ?? []);
    const { rows, total } = repo.listGpgKeys(
      this.db,
      readable.map((organization) => organization.id),
      offset,
      limit,
    );
    const names = new Map(readable.map((organization) => [organization.id, organization.name]));
    return { items: rows.map((key) => ({ key, namespace: names.get(key.organizationId) ?? '' })), total };
  }

  create(principal: Principal, input: { namespace?: string | null; asciiArmor?: string | null }): LoadedKey {
    if (!input.namespace) throw unprocessable("Namespace can't be blank", '/data/attributes/namespace');
    if (!input.asciiArmor) throw unprocessable("Ascii armor can't be blank", '/data/attributes/ascii-armor');
    const organization = this.namespace(principal, input.namespace, 'manage-providers');
    if (!organization) throw notAuthorized();
    const parsed = readPublicKey(input.asciiArmor);
    if (!parsed) throw unprocessable('Ascii armor is not an ASCII-armored OpenPGP public key', '/data/attributes/ascii-armor');
    if (repo.findGpgKey(this.db, organization.id, parsed.keyId)) {
      throw unprocessable('Key has already been taken', '/data/attributes/ascii-armor');
    }
    const at = this.clock.now();
    const key: GpgKeyRow = {
      id: newId('gpgkey'),
      organizationId: organization.id,
      keyId: parsed.keyId,
      asciiArmor: input.asciiArmor,
      source: '',
      sourceUrl: null,
      trustSignature: '',
      createdAt: at,
      updatedAt: at,
    };
    repo.insertGpgKey(this.db, key);
    return { key, namespace: organization.name };
  }

  get(principal: Principal, registryName: string, namespace: string, keyId: string): LoadedKey {
    if (registryName !== 'private') throw NOT_FOUND;
    const organization = this.namespace(principal, namespace, 'read');
    const key = organization && repo.findGpgKey(this.db, organization.id, keyId);
    if (!organization || !key) throw NOT_FOUND;
    return { key, namespace: organization.name };
  }

  /** Moves a key to another namespace the caller manages providers in. */
  update(principal: Principal, registryName: string, namespace: string, keyId: string, target: string | null | undefined): LoadedKey {
    const { key } = this.managed(principal, registryName, namespace, keyId);
    if (!target) throw unprocessable("Namespace can't be blank", '/data/attributes/namespace');
    const organization = this.namespace(principal, target, 'manage-providers');
    if (!organization) throw notAuthorized();
    if (organization.id === key.organizationId) return { key, namespace: organization.name };
    if (repo.findGpgKey(this.db, organization.id, key.keyId))
      throw unprocessable('Key has already been taken', '/data/attributes/namespace');
    const at = this.clock.now();
    repo.moveGpgKey(this.db, key.id, organization.id, at);
    return { key: { ...key, organizationId: organization.id, updatedAt: at }, namespace: organization.name };
  }

  destroy(principal: Principal, registryName: string, namespace: string, keyId: string): void {
    repo.deleteGpgKey(this.db, this.managed(principal, registryName, namespace, keyId).key.id);
  }

  private managed(principal: Principal, registryName: string, namespace: string, keyId: string): LoadedKey {
    const loaded = this.get(principal, registryName, namespace, keyId);
    if (!this.namespace(principal, namespace, 'manage-providers')) throw NOT_FOUND;
    return loaded;
  }

  /** The keys of an organization with these ids, for the provider protocol's `signing_keys`. */
  signingKeys(organizationId: string, keyId: string): GpgKeyRow[] {
    const key = repo.findGpgKey(this.db, organizationId, keyId);
    return key ? [key] : [];
  }
}
