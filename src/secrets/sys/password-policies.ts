import { badRequest, notFound } from '../../core/errors.js';
import type { SecretsContext } from '../context.js';
import type { HandlerRequest, PathSpec } from '../framework/types.js';
import { PasswordPolicyError } from '../passwords/policy.js';
import { PasswordPolicyStore } from '../passwords/policy-store.js';

const nameOf = (request: HandlerRequest) => request.params['name'] ?? '';

/** `sys/policies/password/…`: named password policies and `generate`. */
export function passwordPolicyPaths(context: SecretsContext): PathSpec[] {
  const store = new PasswordPolicyStore(context.store.db);
  return [
    {
      pattern: 'policies/password',
      summary: 'Names of the password policies.',
      operations: {
        list: () => {
          const keys = store.names();
          if (keys.length === 0) throw notFound();
          return { data: { keys } };
        },
      },
    },
    {
      pattern: 'policies/password/:name/generate',
      summary: 'A password generated from the named policy.',
      operations: {
        read: (request) => {
          if (store.raw(nameOf(request)) === undefined) throw notFound();
          return { data: { password: store.generate(nameOf(request)) } };
        },
      },
    },
    {
      pattern: 'policies/password/:name',
      summary: 'Write, read or delete a password policy (HCL or JSON: `length` and `rule "charset"` blocks).',
      fields: { policy: { type: 'string', description: 'The policy text.' } },
      operations: {
        update: (request) => {
          const text = request.fields.get<string | undefined>('policy') ?? '';
          if (text === '') throw badRequest('missing policy');
          try {
            store.put(nameOf(request), text);
          } catch (error) {
            if (error instanceof PasswordPolicyError) throw badRequest(`invalid password policy: ${error.message}`);
            throw error;
          }
          return undefined;
        },
        read: (request) => {
          const policy = store.raw(nameOf(request));
          if (policy === undefined) throw notFound();
          return { data: { policy } };
        },
        delete: (request) => {
          store.delete(nameOf(request));
          return undefined;
        },
      },
    },
  ];
}
