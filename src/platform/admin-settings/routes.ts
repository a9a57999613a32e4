import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { canonical, DIALECT_TERMS } from '../../core/dialect.js';
import type { PlatformContext } from '../context.js';
import { readResource } from '../jsonapi/body.js';
import { requestUrl, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { SETTINGS_NAMES, type SettingsName } from './fields.js';
import { settingsResource } from './resource.js';

/** A PATCH body: a JSON:API document whose `type` may be empty, as real clients send it. */
const SettingsBody = Type.Object({
  data: Type.Object(
    { type: Type.String(), attributes: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
    { additionalProperties: true },
  ),
});

/** Every path a settings document answers at: its spec name and, where the dialect table has one, the real name. */
function addressesOf(name: SettingsName): string[] {
  const spec = `${name}-settings`;
  const upstream = DIALECT_TERMS.find((term) => term.spec === spec)?.upstream;
  return upstream ? [spec, upstream] : [spec];
}

/** `/api/v2/admin/…` (self-hosted edition only; `platform/plugin.ts` decides whether to register it). */
export async function adminRoutes(app: FastifyInstance, context: PlatformContext): Promise<void> {
  const service = context.services.admin;
  const { signingKeys } = context.services;
  // Before body validation, so a caller who is not a site administrator meets the 404 whatever it sends.
  app.addHook('preValidation', async (request) => service.requireAdmin(request.principal));
  const render = (request: FastifyRequest, name: SettingsName, settings: Record<string, unknown>) =>
    singleDocument(settingsResource(name, settings, { dialect: context.config.dialect, baseUrl: requestUrl(request).origin }));

  for (const name of SETTINGS_NAMES) {
    // Both spellings of a document's type are accepted in a body, and the empty one real clients send.
    const types = [`${name}-settings`, canonical(`${name}-settings`), ...addressesOf(name)];
    for (const address of addressesOf(name)) {
      app.get(`/admin/${address}`, async (request, reply) =>
        sendDocument(reply, 200, render(request, name, service.read(request.principal, name))),
      );
      app.patch(`/admin/${address}`, { schema: { body: SettingsBody } }, async (request, reply) => {
        const { attributes } = readResource(request.body, types, { allowEmptyType: true });
        return sendDocument(reply, 200, render(request, name, await service.update(request.principal, name, attributes)));
      });
    }
  }

  // The spec documents POST; the real client sends PATCH. Both, at both names.
  for (const address of addressesOf('sms')) {
    app.route({
      method: ['POST', 'PATCH'],
      url: `/admin/${address}/verify`,
      handler: async (request, reply) => {
        const body = request.body === undefined ? { data: { type: '', attributes: {} } } : request.body;
        const { attributes } = readResource(body, ['sms-settings', 'twilio-settings', 'sms-verifications'], { allowEmptyType: true });
        await service.verifySms(request.principal, attributes);
        return reply.code(200).send();
      },
    });
  }

  app.post('/admin/saml-settings/actions/revoke-old-certificate', async (request, reply) =>
    sendDocument(reply, 200, render(request, 'saml', service.revokeOldCertificate(request.principal))),
  );

  app.post('/admin/oidc-settings/actions/rotate-key', async (request, reply) => {
    await signingKeys.rotate();
    return sendNoContent(reply);
  });

  app.post('/admin/oidc-settings/actions/trim-key', async (request, reply) => {
    signingKeys.trim();
    return sendNoContent(reply);
  });
}
