import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';

export const KEY = 'task-hmac-key';

export interface Payload {
  stage: string;
  run_id: string;
  access_token: string;
  task_result_callback_url: string;
  task_result_enforcement_level: string;
}

/**
 * A run task service as a team would write one: it checks the HMAC signature, answers 200 at
 * once, then PATCHes its verdict to the callback URL with the payload's access token.
 */
export function startTaskService(verdict: (payload: Payload) => 'passed' | 'failed') {
  const received: { payload: Payload; verified: boolean }[] = [];
  const waiters: { wanted: (seen: typeof received) => boolean; resolve: () => void }[] = [];
  /** Resolves once what the service has received satisfies `wanted`, at once if it already does. */
  const until = (wanted: (seen: typeof received) => boolean) =>
    new Promise<void>((resolve) => {
      if (wanted(received)) resolve();
      else waiters.push({ wanted, resolve });
    });
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const expected = Buffer.from(createHmac('sha512', KEY).update(body).digest('hex'));
      const given = Buffer.from(String(request.headers['x-tfc-task-signature'] ?? ''));
      const verified = given.length === expected.length && timingSafeEqual(given, expected);
      const payload = JSON.parse(body) as Payload;
      received.push({ payload, verified });
      for (const waiter of [...waiters]) {
        if (!waiter.wanted(received)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      response.writeHead(200).end();
      void fetch(payload.task_result_callback_url, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${payload.access_token}`, 'content-type': 'application/vnd.api+json' },
        body: JSON.stringify({
          data: { type: 'task-results', attributes: { status: verdict(payload), message: `checked at ${payload.stage}` } },
        }),
      });
    });
  });
  return new Promise<{ server: Server; url: string; received: typeof received; until: typeof until }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, received, until }),
    ),
  );
}
