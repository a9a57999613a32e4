import type { FastifyInstance } from 'fastify';
import { listOutbox } from '../platform/admin-settings/repo.js';
import type { Runtime } from '../runtime.js';

/**
 * `GET /_emulator/outbox`: every test mail and SMS understudy sent (through the SMTP server, the
 * SMS API, or only here), oldest first, so tests can read what a user would have received.
 * `/_emulator/reset` empties it.
 */
export async function outboxRoutes(app: FastifyInstance, runtime: Runtime): Promise<void> {
  app.get('/outbox', async () => ({
    messages: listOutbox(runtime.store.db).map((row) => ({
      id: row.id,
      kind: row.kind,
      'delivered-via': row.deliveredVia,
      from: row.sender,
      to: row.recipient,
      subject: row.subject,
      body: row.body,
      'sent-at': row.sentAt.toISOString(),
    })),
  }));
}
