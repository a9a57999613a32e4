/** Where and how to hand a message over: the administrator's SMTP settings. */
export interface SmtpServer {
  host: string;
  port: number;
  auth: 'none' | 'plain' | 'login';
  username: string;
  password: string;
}

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
}

/** What happened, in the terms the mail settings answer with (401, 500, 504). */
export type MailOutcome = { ok: true } | { ok: false; reason: 'auth' | 'server' | 'timeout'; message: string };

const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ETIMEOUT']);

function classify(error: unknown): MailOutcome {
  const { code, message, responseCode } = error as { code?: string; message?: string; responseCode?: number };
  const text = message ?? String(error);
  if (code === 'EAUTH' || responseCode === 535) return { ok: false, reason: 'auth', message: text };
  if ((code !== undefined && TIMEOUT_CODES.has(code)) || /timed? ?out/i.test(text)) return { ok: false, reason: 'timeout', message: text };
  return { ok: false, reason: 'server', message: text };
}

/**
 * Sends one message through `server`, waiting at most `timeoutMs` for the whole exchange. The
 * password goes to the server only; it never appears in the outcome.
 */
export async function sendMail(server: SmtpServer, mail: OutgoingMail, timeoutMs: number): Promise<MailOutcome> {
  // Loaded on first use, like the database drivers: start-up never pays for it.
  const { createTransport } = await import('nodemailer');
  const transport = createTransport({
    host: server.host,
    port: server.port,
    // Port 465 speaks TLS from the first byte; the others upgrade with STARTTLS when offered.
    secure: server.port === 465,
    ...(server.auth === 'none'
      ? {}
      : { auth: { user: server.username, pass: server.password }, authMethod: server.auth === 'plain' ? 'PLAIN' : 'LOGIN' }),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    logger: false,
  });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<MailOutcome>((done) => {
    timer = setTimeout(
      () => done({ ok: false, reason: 'timeout', message: `the SMTP server did not finish within ${timeoutMs} ms` }),
      timeoutMs,
    );
  });
  const attempt = transport.sendMail(mail).then(
    (): MailOutcome => ({ ok: true }),
    (error: unknown) => classify(error),
  );
  try {
    return await Promise.race([attempt, deadline]);
  } finally {
    clearTimeout(timer);
    transport.close();
  }
}
