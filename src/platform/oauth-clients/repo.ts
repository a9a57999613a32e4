import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { oauthClients, oauthTokens } from '../../store/tables.js';

export type OAuthClientRow = typeof oauthClients.$inferSelect;
export type OAuthTokenRow = typeof oauthTokens.$inferSelect;

export function insertClient(db: DbOrTx, client: OAuthClientRow, token: OAuthTokenRow): void {
  db.transaction((tx) => {
    tx.insert(oauthClients).values(client).run();
    tx.insert(oauthTokens).values(token).run();
  });
}

export const findClient = (db: DbOrTx, id: string) => db.select().from(oauthClients).where(eq(oauthClients.id, id)).get();
export const findToken = (db: DbOrTx, id: string) => db.select().from(oauthTokens).where(eq(oauthTokens.id, id)).get();
export const tokensOf = (db: DbOrTx, clientId: string) =>
  db.select().from(oauthTokens).where(eq(oauthTokens.oauthClientId, clientId)).all();
export const clientsOf = (db: DbOrTx, organizationId: string) =>
  db.select().from(oauthClients).where(eq(oauthClients.organizationId, organizationId)).all();
