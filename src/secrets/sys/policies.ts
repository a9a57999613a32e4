import { badRequest, notFound } from '../../core/errors.js';
import type { SecretsContext } from '../context.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../framework/types.js';
import { policyName } from '../acl/policy-store.js';

const POLICY_FIELDS: Record<string, FieldSpec> = {
  name: { type: 'string', description: 'Policy name (in the URL); stored lower-case.' },
  policy: { type: 'string', description: 'The policy text, HCL or JSON, optionally base64-encoded.' },
};

/** Standard base64 that decodes cleanly; the real service accepts policies sent that way. */
function decodeIfBase64(text: string): string {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return text;
  return Buffer.from(text, 'base64').toString('utf8');
}

/**
 * `sys/policies/acl…` (`{name, policy}`) and the legacy `sys/policy…` (`{name, rules}`, with its
 * data also copied to the top level, as the real service does for that prefix).
 */
export function policyPaths(context: SecretsContext): PathSpec[] {
  const { policies } = context;

  /** Stored names plus the built-in `root`, which the real service appends last. */
  const listing = () => [...policies.names(), 'root'];

  const read =
    (field: 'policy' | 'rules', legacy: boolean) =>
    (request: HandlerRequest): LogicalResponse | undefined => {
      const name = policyName(request.params['name'] ?? '');
      const raw = policies.raw(name);
      if (raw === undefined) throw notFound();
      return { data: { name, [field]: raw }, dataAtTopLevel: legacy };
    };

  const write =
    (legacy: boolean) =>
    (request: HandlerRequest): LogicalResponse | undefined => {
      const name = policyName(request.params['name'] ?? '');
      if (name === '') throw badRequest('policy name must be provided in the URL');
      const warnings: string[] = [];
      let raw = request.fields.get<string | undefined>('policy') ?? '';
      if (raw === '' && legacy && request.fields.has('rules')) {
        raw = request.fields.get<string>('rules');
        warnings.push("'rules' is deprecated, please use 'policy' instead");
      }
      if (raw === '') throw badRequest("'policy' parameter not supplied or empty");
      policies.put(name, decodeIfBase64(raw));
      return warnings.length > 0 ? { warnings } : undefined;
    };

  const remove = (request: HandlerRequest): undefined => {
    policies.delete(request.params['name'] ?? '');
    return undefined;
  };

  return [
    {
      pattern: 'policy',
      summary: 'Names of the ACL policies (legacy form: `keys` and `policies`).',
      operations: {
        read: () => ({ data: { keys: listing(), policies: listing() }, dataAtTopLevel: true }),
        list: () => ({ data: { keys: listing(), policies: listing() }, dataAtTopLevel: true }),
      },
    },
    {
      pattern: 'policy/:name',
      summary: 'Read, write or delete an ACL policy (legacy form: `rules`).',
      fields: { ...POLICY_FIELDS, rules: { type: 'string', description: 'Deprecated spelling of `policy`.' } },
      operations: { read: read('rules', true), update: write(true), delete: remove },
    },
    {
      pattern: 'policies/acl',
      summary: 'Names of the ACL policies.',
      operations: { list: () => ({ data: { keys: listing() } }) },
    },
    {
      pattern: 'policies/acl/:name',
      summary: 'Read, write or delete an ACL policy.',
      fields: POLICY_FIELDS,
      operations: { read: read('policy', false), update: write(false), delete: remove },
    },
  ];
}
