import { Type } from '@fastify/type-provider-typebox';
import { unprocessable } from '../../core/errors.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource, relationshipId } from '../jsonapi/body.js';
import { sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { Attr, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import type { LoadedNoCode, NoCodeInput, VariableOptionInput } from './no-code.js';
import { noCodeResource } from './resource.js';
import { noCodeIncludes } from './view.js';

const INCLUDES = noCodeIncludes.names;
const NO_CODE_BODY = resourceBody(['no-code-modules'], {
  attributes: { enabled: Attr.boolean(), 'version-pin': Attr.string('"latest", empty, or an existing version of the module') },
  relationships: ['registry-module', 'variable-options'],
});

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `relationships.variable-options.data`: each entry carries its attributes (the client sends them inline). */
function readVariableOptions(relationships: Record<string, unknown>): VariableOptionInput[] | undefined {
  const relationship = relationships['variable-options'];
  if (relationship === undefined || relationship === null) return undefined;
  const data = isObject(relationship) ? relationship['data'] : undefined;
  if (data === null) return [];
  const base = '/data/relationships/variable-options/data';
  if (!Array.isArray(data)) throw unprocessable('variable-options.data must be an array', base);
  return data.map((entry, index) => {
    if (!isObject(entry) || entry['type'] !== 'variable-options')
      throw unprocessable('each variable option must have type "variable-options"', `${base}/${index}/type`);
    const attributes = new Attributes(isObject(entry['attributes']) ? entry['attributes'] : {}, `${base}/${index}/attributes`);
    return {
      variableName: attributes.string('variable-name', { required: true }) as string,
      variableType: attributes.string('variable-type', { required: true }) as string,
      options: attributes.stringArray('options') ?? [],
    };
  });
}

function readNoCodeInput(body: unknown): NoCodeInput {
  const resource = readResource(body, ['no-code-modules']);
  const attributes = new Attributes(resource.attributes);
  const moduleId = relationshipId(resource.relationships, 'registry-module', 'registry-modules') ?? undefined;
  const enabled = attributes.boolean('enabled');
  const versionPin = attributes.string('version-pin') ?? undefined;
  const variableOptions = readVariableOptions(resource.relationships);
  return {
    ...(moduleId !== undefined ? { moduleId } : {}),
    ...(enabled !== undefined ? { enabled } : {}),
    ...(versionPin !== undefined ? { versionPin } : {}),
    ...(variableOptions !== undefined ? { variableOptions } : {}),
  };
}

/**
 * No-code modules as go-tfe's RegistryNoCodeModules calls them: create under the organization,
 * read (`include=variable-options`), update and delete by id, and a version's variables.
 */
export async function noCodeRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.noCode;
  const document = (loaded: LoadedNoCode, wanted: ReadonlySet<string> = new Set()) =>
    singleDocument(noCodeResource(loaded.row, loaded.organizationName), noCodeIncludes.collect(wanted, loaded));

  app.post('/organizations/:org/no-code-modules', { schema: { params: params('org'), body: NO_CODE_BODY } }, async (request, reply) => {
    const created = service.create(request.principal, request.params.org, readNoCodeInput(request.body));
    return sendDocument(reply, 201, document(created));
  });

  app.get('/no-code-modules/:id', { schema: { params: params('id'), querystring: showQuery(INCLUDES) } }, async (request, reply) => {
    const wanted = noCodeIncludes.read(request.query);
    return sendDocument(reply, 200, document(service.get(request.principal, request.params.id), wanted));
  });

  app.patch('/no-code-modules/:id', { schema: { params: params('id'), body: NO_CODE_BODY } }, async (request, reply) => {
    const updated = service.update(request.principal, request.params.id, readNoCodeInput(request.body));
    return sendDocument(reply, 200, document(updated));
  });

  app.delete('/no-code-modules/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.destroy(request.principal, request.params.id);
    return sendNoContent(reply);
  });

  app.get(
    '/no-code-modules/:id/versions/:version/module-variables',
    { schema: { params: params('id', 'version'), querystring: Type.Object({}) } },
    async (request, reply) => {
      const variables = service.variables(request.principal, request.params.id, request.params.version);
      return sendDocument(reply, 200, {
        data: variables.map((variable, index) => ({
          id: `${request.params.id}-${request.params.version}-${index}`,
          type: 'registry-module-variables',
          attributes: {
            name: variable.name,
            type: variable.type,
            description: variable.description,
            required: variable.required,
            sensitive: false,
            options: variable.options,
            'has-global': false,
          },
        })),
      });
    },
  );
}
