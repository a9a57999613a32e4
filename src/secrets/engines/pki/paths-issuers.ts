import { badRequest, notFound } from '../../../core/errors.js';
import { rethrowAsUpstream500 } from '../../framework/errors.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import { hasCrlSign, issuerData } from './authority.js';
import { buildAllCrls } from './ca.js';
import type { PkiEngine } from './engine.js';
import { checkName, ISSUER_USAGES, pkiStore, type IssuerEntry, type LeafNotAfterBehavior } from './storage.js';

const LEAF_BEHAVIORS: LeafNotAfterBehavior[] = ['err', 'truncate', 'permit'];

const ISSUER_FIELDS: Record<string, FieldSpec> = {
  issuer_ref: { type: 'string', description: 'default, an issuer id or name' },
  issuer_name: { type: 'string', default: '', description: 'the issuer name' },
  leaf_not_after_behavior: { type: 'string', default: 'err', description: 'err, truncate or permit' },
  usage: {
    type: 'commaStringSlice',
    default: [...ISSUER_USAGES],
    description: 'read-only, issuing-certificates, crl-signing, ocsp-signing',
  },
  manual_chain: { type: 'commaStringSlice', default: [], description: 'issuer references for the chain, this issuer first' },
};

/** LIST issuers: ids, with name, default flag, serial and key (unauthenticated, as upstream). */
const listIssuers = (request: HandlerRequest): LogicalResponse => {
  const store = pkiStore(request);
  const issuers = store.issuers();
  if (issuers.length === 0) throw notFound();
  const defaultId = store.issuersConfig().default;
  const info = Object.fromEntries(
    issuers.map((issuer) => [
      issuer.id,
      { issuer_name: issuer.name, is_default: issuer.id === defaultId, serial_number: issuer.serial_number, key_id: issuer.key_id },
    ]),
  );
  return { data: { keys: issuers.map((issuer) => issuer.id), key_info: info } };
};

/** Reading an issuer that does not exist is a 500 at the real service (upstream500: the `upstream` dialect only). */
const readIssuer = (request: HandlerRequest): LogicalResponse => {
  try {
    return { data: issuerData(pkiStore(request).resolveIssuer(request.params.issuer_ref as string)) };
  } catch (error) {
    rethrowAsUpstream500(error);
  }
};

/**
 * POST replaces every setting (absent fields take their defaults); PATCH changes only the fields
 * given. Both answer the issuer as it now is.
 */
function updatedIssuer(request: HandlerRequest, issuer: IssuerEntry, patch: boolean): IssuerEntry {
  const store = pkiStore(request);
  const fields = request.fields;
  const given = (name: string) => !patch || fields.has(name);
  const next = { ...issuer };
  if (given('issuer_name')) {
    const wanted = fields.get<string>('issuer_name').trim();
    if (wanted !== issuer.name) {
      if (patch && wanted === '') throw badRequest('expected non-empty issuer name');
      next.name = checkName('issuer', wanted, (name) => store.findIssuer(name) !== undefined);
    }
  }
  if (given('leaf_not_after_behavior')) {
    const behavior = fields.get<string>('leaf_not_after_behavior') as LeafNotAfterBehavior;
    if (!LEAF_BEHAVIORS.includes(behavior))
      throw badRequest('Unknown value for field `leaf_not_after_behavior`. Possible values are `err`, `truncate`, and `permit`.');
    next.leaf_not_after_behavior = behavior;
  }
  if (given('usage')) {
    const requested = fields.get<string[]>('usage').map((usage) => usage.trim().toLowerCase());
    if (requested.some((usage) => !(ISSUER_USAGES as readonly string[]).includes(usage)))
      throw badRequest(`Unable to parse specified usages: [${requested.join(' ')}] - valid values are [${ISSUER_USAGES.join(' ')}]`);
    const usage = ISSUER_USAGES.filter((name) => name === 'read-only' || requested.includes(name));
    if (issuer.revoked && usage.includes('issuing-certificates') && !issuer.usage.includes('issuing-certificates'))
      throw badRequest(
        'This issuer was revoked; unable to modify its usage to include certificate signing again. ' +
          'Reissue this certificate (preferably with a new key) and modify that entry instead.',
      );
    if (usage.includes('crl-signing') && !issuer.usage.includes('crl-signing') && !hasCrlSign(issuer.certificate))
      throw badRequest(
        "This issuer's underlying certificate lacks the CRLSign KeyUsage value; unable to set CRLSigningUsage on this issuer as a result.",
      );
    next.usage = [...usage];
  }
  if (given('manual_chain')) {
    const refs = fields.get<string[]>('manual_chain');
    next.manual_chain = refs.map((ref, index) => {
      const id = index === 0 && ref === 'self' ? issuer.id : store.resolveIssuer(ref).id;
      if (index === 0 && id !== issuer.id) throw badRequest(`expected first cert in chain to be a self-reference, but was: ${ref}/${id}`);
      return id;
    });
  }
  return next;
}

/** Managing issuers: list, read, update (name, leaf NotAfter behavior, usage, manual chain), delete. */
export function issuerPaths(engine: PkiEngine): PathSpec[] {
  const update = (patch: boolean) => (request: HandlerRequest) =>
    engine.exclusive(request.mount.uuid, async (): Promise<LogicalResponse> => {
      const store = pkiStore(request);
      const issuer = store.resolveIssuer(request.params.issuer_ref as string);
      const next = updatedIssuer(request, issuer, patch);
      if (JSON.stringify(next) !== JSON.stringify(issuer)) {
        engine.commit(request.mount.uuid, (tx) => {
          tx.putIssuer(next);
          tx.rebuildChains();
        });
      }
      return { data: issuerData(store.issuer(issuer.id) ?? next) };
    });

  /** Deleting an unknown issuer answers as if it was deleted; deleting the default leaves none. */
  const remove = (request: HandlerRequest) =>
    engine.exclusive(request.mount.uuid, async (): Promise<LogicalResponse | undefined> => {
      const store = pkiStore(request);
      const ref = request.params.issuer_ref as string;
      const issuer = store.findIssuer(ref);
      if (!issuer) return undefined;
      const crls = await buildAllCrls(engine, store, request.mount.uuid, engine.now(), { removed: issuer.id });
      const wasDefault = engine.commit(request.mount.uuid, (tx) => {
        const result = tx.deleteIssuer(issuer.id);
        tx.rebuildChains();
        for (const [id, crl] of crls) tx.putCrl(id, crl);
        return result;
      });
      if (!wasDefault) return undefined;
      return {
        data: null,
        warnings: [
          `Deleted issuer ${issuer.id} (via issuer_ref ${ref}); this was configured as the default issuer. ` +
            'Operations without an explicit issuer will not work until a new default is configured.',
        ],
      };
    });

  return [
    { pattern: 'issuers', summary: 'List issuers.', unauthenticated: ['list'], operations: { list: listIssuers } },
    {
      pattern: 'issuer/:issuer_ref',
      summary: 'Read, update or delete an issuer.',
      fields: ISSUER_FIELDS,
      operations: { read: readIssuer, update: update(false), patch: update(true), delete: remove },
    },
  ];
}
