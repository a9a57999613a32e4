/** The administrator's SMS account, as the provider's messages API authenticates it. */
export interface SmsAccount {
  accountSid: string;
  authToken: string;
  fromNumber: string;
}

export type SmsOutcome = { ok: true } | { ok: false; message: string };

/**
 * Sends one SMS through an HTTP endpoint compatible with the real provider's messages API: a
 * form-encoded POST to `{base}/2010-04-01/Accounts/{sid}/Messages.json` with basic auth of
 * `sid:token`. The token goes in the header only and never into the outcome.
 */
export async function sendSms(baseUrl: string, account: SmsAccount, to: string, body: string, timeoutMs: number): Promise<SmsOutcome> {
  const url = `${baseUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(account.accountSid)}/Messages.json`;
  const credentials = Buffer.from(`${account.accountSid}:${account.authToken}`).toString('base64');
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Basic ${credentials}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ To: to, From: account.fromNumber, Body: body }).toString(),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.ok) return { ok: true };
    const text = await response.text();
    let detail = text.slice(0, 300);
    try {
      const parsed = JSON.parse(text) as { message?: unknown };
      if (typeof parsed.message === 'string') detail = parsed.message;
    } catch {
      // Not JSON: the raw text (shortened) explains it well enough.
    }
    return { ok: false, message: `the SMS API answered ${response.status}: ${detail}` };
  } catch (error) {
    return { ok: false, message: `the SMS API could not be reached: ${(error as Error).message}` };
  }
}
