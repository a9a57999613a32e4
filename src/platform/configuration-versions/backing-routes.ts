import type { PlatformApp, PlatformContext } from '../context.js';
import { BACKING_DATA_ACTIONS } from '../backing-data.js';
import { params } from '../jsonapi/schemas.js';

/**
 * `POST /configuration-versions/:id/actions/<backing-data action>` (self-hosted edition): 200
 * with no body (the real service documents a 200 and no content).
 */
export async function configurationVersionBackingDataRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.configurationVersions;
  for (const action of BACKING_DATA_ACTIONS) {
    app.post<{ Params: { id: string } }>(
      `/configuration-versions/:id/actions/${action}`,
      { schema: { params: params('id') } },
      async (request, reply) => {
        service.backingData(request.principal, request.params.id, action);
        return reply.code(200).send();
      },
    );
  }
}
