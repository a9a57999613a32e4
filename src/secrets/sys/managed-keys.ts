import { notFound } from '../../core/errors.js';
import type { SecretsContext } from '../context.js';
import type { FieldSpec, HandlerRequest, PathSpec } from '../framework/types.js';
import { GENERIC_FLAGS } from '../managed-keys/service.js';

const GENERIC_FIELDS: Record<string, FieldSpec> = Object.fromEntries(
  GENERIC_FLAGS.map((name) => [
    name,
    { type: 'bool', description: 'String boolean, default "false".', default: false } satisfies FieldSpec,
  ]),
);

/** `sys/managed-keys/:type[/:name]`: key configurations for the PKCS#11 and cloud key backends. */
export function managedKeyPaths(context: SecretsContext): PathSpec[] {
  const keys = context.managedKeys;
  const target = (request: HandlerRequest) => ({ type: keys.keyType(request.params['type'] ?? ''), name: request.params['name'] ?? '' });

  // Every type's fields are declared on the one path; each type reads only its own.
  const fields: Record<string, FieldSpec> = { ...GENERIC_FIELDS };
  for (const definition of keys.definitions()) Object.assign(fields, definition.fields);

  return [
    {
      pattern: 'managed-keys/:type',
      summary: 'Names of the managed keys of a type.',
      operations: {
        list: (request) => {
          const names = keys.list(keys.keyType(request.params['type'] ?? ''));
          if (names.length === 0) throw notFound();
          return { data: { keys: names } };
        },
      },
    },
    {
      pattern: 'managed-keys/:type/:name/test/sign',
      summary: 'Finds (or generates) the key, signs a random message and verifies the signature.',
      operations: {
        update: async (request) => {
          const { type, name } = target(request);
          await keys.testSign(type, name);
          return undefined;
        },
      },
    },
    {
      pattern: 'managed-keys/:type/:name',
      summary: 'Create, update, read or delete a managed key.',
      fields,
      // Runs before the token is checked, so an unknown type must not answer here (the handler refuses it).
      existenceCheck: (request) => {
        const type = request.params['type'] ?? '';
        try {
          return keys.get(keys.keyType(type), request.params['name'] ?? '') !== undefined;
        } catch {
          return false;
        }
      },
      operations: {
        read: (request) => {
          const { type, name } = target(request);
          const record = keys.get(type, name);
          if (!record) throw notFound();
          return { data: keys.wire(record) };
        },
        update: (request) => {
          const { type, name } = target(request);
          keys.write(type, name, request.fields);
          return undefined;
        },
        delete: (request) => {
          const { type, name } = target(request);
          keys.delete(type, name);
          return undefined;
        },
      },
    },
  ];
}
