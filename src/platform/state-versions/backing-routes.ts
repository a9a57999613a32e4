import type { PlatformApp, PlatformContext } from '../context.js';
import { BACKING_DATA_ACTIONS } from '../backing-data.js';
import { sendNoContent } from '../jsonapi/documents.js';
import { params } from '../jsonapi/schemas.js';

/** `POST /state-versions/:id/actions/<backing-data action>` (self-hosted edition): 204, as the real service answers. */
export async function stateVersionBackingDataRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.stateVersions;
  for (const action of BACKING_DATA_ACTIONS) {
    app.post<{ Params: { id: string } }>(
      `/state-versions/:id/actions/${action}`,
      { schema: { params: params('id') } },
      async (request, reply) => {
        service.backingData(request.principal, request.params.id, action);
        return sendNoContent(reply);
      },
    );
  }
}
