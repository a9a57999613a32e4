import { sendMail, type SmtpServer } from '../../adapters/smtp/mailer.js';
import { sendSms } from '../../adapters/sms/messages-api.js';
import { ApiError, badRequest } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Runtime } from '../../runtime.js';
import { StoreDerived } from '../../store/generation.js';
import type { DbOrTx } from '../../store/store.js';
import { isSiteAdmin, type Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { defaults, type SettingsName } from './fields.js';
import * as repo from './repo.js';
import { checkSettings, parseUpdate } from './rules.js';

/** One settings document: defaults, then whatever was stored over them. */
export function readSettings(db: DbOrTx, name: SettingsName): Record<string, unknown> {
  return { ...defaults(name), ...repo.findSettings(db, name) };
}

/**
 * The installation-wide `default-remote-state-access` setting: what `global-remote-state` becomes
 * on a new workspace that does not say. (Which edition consults it is the workspaces' decision.)
 */
export function defaultRemoteStateAccess(db: DbOrTx): boolean {
  return readSettings(db, 'general')['default-remote-state-access'] === true;
}

/** Whether only site administrators may create organizations (`limit-user-organization-creation`). */
export function organizationCreationLimited(db: DbOrTx): boolean {
  return readSettings(db, 'general')['limit-user-organization-creation'] === true;
}

/**
 * Checks `attributes` (spec spelling) as a PATCH would and stores them over the defaults, without
 * side effects: how a seed file sets settings. Throws the same 422 a PATCH would.
 */
export function seedSettings(db: DbOrTx, name: SettingsName, attributes: Record<string, unknown>, at: Date): void {
  const { changes } = parseUpdate(name, attributes);
  const merged = { ...readSettings(db, name), ...changes };
  checkSettings(name, merged);
  repo.saveSettings(db, name, merged, at);
}

const MAIL_SUBJECT = 'understudy test message';

type OutboxEntry = Omit<repo.OutboxRow, 'id' | 'sentAt'>;

/** The administrator settings: reads, validated updates, and the side effects some updates have. */
export class AdminService {
  /**
   * What the general settings say about the API rate limit, read once and kept until they are
   * written (here) or the store's content is replaced, so the limiter pays no query per request.
   */
  private readonly limit: StoreDerived<{ enabled: boolean; limit: number }>;

  constructor(private readonly runtime: Runtime) {
    this.limit = new StoreDerived(runtime.store.sqlite, () => {
      const general = readSettings(this.db, 'general');
      return { enabled: general['api-rate-limiting-enabled'] === true, limit: general['api-rate-limit'] as number };
    });
  }

  /** The rate limiter's policy (platform/rate-limit.ts). */
  limitPolicy(): { enabled: boolean; limit: number } {
    return this.limit.get();
  }

  private get db() {
    return this.runtime.store.db;
  }

  /** Site administrators only; everyone else meets the same 404 as a missing resource. */
  requireAdmin(principal: Principal): void {
    if (!isSiteAdmin(principal)) throw NOT_FOUND;
  }

  read(principal: Principal, name: SettingsName): Record<string, unknown> {
    this.requireAdmin(principal);
    return readSettings(this.db, name);
  }

  /**
   * Applies a PATCH: each attribute checked, then the rules joining them on the merged document,
   * then the side effect (the SMTP test message), and only then the write. A failure anywhere
   * leaves the stored settings as they were.
   */
  async update(principal: Principal, name: SettingsName, attributes: Record<string, unknown>): Promise<Record<string, unknown>> {
    this.requireAdmin(principal);
    const { changes, transient } = parseUpdate(name, attributes);
    const current = readSettings(this.db, name);
    const merged = { ...current, ...changes };
    if (
      name === 'saml' &&
      typeof changes['idp-cert'] === 'string' &&
      changes['idp-cert'] !== current['idp-cert'] &&
      current['idp-cert'] !== ''
    ) {
      merged['old-idp-cert'] = current['idp-cert'];
    }
    checkSettings(name, merged, this.runtime.config.dialect);
    const testAddress = transient['test-email-address'];
    // The mail goes out first; the settings and the outbox entry are then written together.
    const sent = name === 'smtp' && merged['enabled'] === true && testAddress ? await this.sendTestMail(merged, testAddress) : undefined;
    this.db.transaction((tx) => {
      repo.saveSettings(tx, name, merged, this.runtime.clock.now());
      if (sent) this.record(tx, sent);
    });
    if (name === 'general') this.limit.drop();
    return merged;
  }

  /** `revoke-old-certificate`: forgets the previous IdP certificate. */
  revokeOldCertificate(principal: Principal): Record<string, unknown> {
    this.requireAdmin(principal);
    const merged = { ...readSettings(this.db, 'saml'), 'old-idp-cert': null };
    repo.saveSettings(this.db, 'saml', merged, this.runtime.clock.now());
    return merged;
  }

  private record(db: DbOrTx, entry: OutboxEntry): void {
    repo.insertOutbox(db, { id: newId('msg'), sentAt: this.runtime.clock.now(), ...entry });
  }

  /** Sends the SMTP test message; returns what the outbox records, or throws the status the spec lists. */
  private async sendTestMail(settings: Record<string, unknown>, to: string): Promise<OutboxEntry> {
    if (!/^[^@\s]+@[^@\s]+$/.test(to))
      throw new ApiError(422, 'test-email-address must be an email address', {
        title: 'invalid attribute',
        pointer: '/data/attributes/test-email-address',
      });
    const server: SmtpServer = {
      host: settings['host'] as string,
      port: settings['port'] as number,
      auth: settings['auth'] as SmtpServer['auth'],
      username: settings['username'] as string,
      password: settings['password'] as string,
    };
    const mail = {
      from: settings['sender'] as string,
      to,
      subject: MAIL_SUBJECT,
      text: 'This message confirms that understudy can send mail with the configured SMTP settings.',
    };
    const outcome = await sendMail(server, mail, this.runtime.config.mailTimeoutMs);
    if (!outcome.ok) {
      const status = outcome.reason === 'auth' ? 401 : outcome.reason === 'timeout' ? 504 : 500;
      const what =
        outcome.reason === 'auth'
          ? 'the SMTP server refused the credentials'
          : outcome.reason === 'timeout'
            ? 'the SMTP server timed out'
            : 'the SMTP server failed';
      throw new ApiError(status, `${what}: ${outcome.message}`);
    }
    return { kind: 'mail', deliveredVia: 'smtp', sender: mail.from, recipient: to, subject: mail.subject, body: mail.text };
  }

  /** `verify`: a test SMS to `test-number` when SMS is enabled and its settings are complete; 400 otherwise. */
  async verifySms(principal: Principal, attributes: Record<string, unknown>): Promise<void> {
    this.requireAdmin(principal);
    const number = attributes['test-number'];
    if (typeof number !== 'string' || number.trim() === '')
      throw badRequest('test-number is required', { pointer: '/data/attributes/test-number' });
    const settings = readSettings(this.db, 'sms');
    if (settings['enabled'] !== true) throw badRequest('SMS is not enabled');
    try {
      checkSettings('sms', settings);
    } catch (error) {
      throw badRequest(`the SMS settings are invalid: ${(error as Error).message}`);
    }
    const account = {
      accountSid: settings['account-sid'] as string,
      authToken: settings['auth-token'] as string,
      fromNumber: settings['from-number'] as string,
    };
    const body = 'understudy test message: SMS verification works.';
    const baseUrl = this.runtime.config.smsApiUrl;
    if (baseUrl !== null) {
      const outcome = await sendSms(baseUrl, account, number, body, this.runtime.config.mailTimeoutMs);
      if (!outcome.ok) throw badRequest(outcome.message);
    }
    this.record(this.db, {
      kind: 'sms',
      deliveredVia: baseUrl === null ? 'outbox' : 'http',
      sender: account.fromNumber,
      recipient: number,
      subject: null,
      body,
    });
  }
}
