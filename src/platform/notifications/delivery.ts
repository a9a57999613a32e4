import { createHmac } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { sendMail } from '../../adapters/smtp/mailer.js';
import type { SecretsAtRest } from '../../core/at-rest.js';
import { isoTimestamp, type Clock } from '../../core/clock.js';
import { KeptAliveAgents } from '../../core/kept-alive.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import type { DeliveryResponse } from '../../store/tables.js';
import { insertOutbox } from '../admin-settings/repo.js';
import { readSettings } from '../admin-settings/service.js';
import * as organizationsRepo from '../organizations/repo.js';
import type { RunTransition } from '../runs/events.js';
import type { RunRow } from '../runs/repo.js';
import { findUserById } from '../users/repo.js';
import { organizationDefaultMode } from '../workspaces/resource.js';
import { findWorkspace } from '../workspaces/repo.js';
import { postOnce } from './http-post.js';
import * as payloads from './payloads.js';
import type { RunNotice } from './payloads.js';
import * as repo from './repo.js';
import type { NotificationRow } from './repo.js';
import { runTrigger } from './triggers.js';

/** The header a generic receiver verifies: lowercase hex HMAC-SHA512 of the exact body, keyed with the token. */
export const SIGNATURE_HEADER = 'X-TFE-Notification-Signature';
const BODY_KEPT = 2_000;
const DEFAULT_SENDER = 'notifications@understudy.local';

export interface DispatcherOptions {
  /** How long one delivery may take before it counts as failed (HTTP and SMTP alike). */
  timeoutMs: number;
  /** `scheme://host` the run's API was reached at, for links; else `fallbackOrigin`. */
  originOf(runId: string): string | undefined;
  fallbackOrigin: string;
}

/** What one verification (or delivery) to a URL gave. */
export interface Verification {
  ok: boolean;
  response: DeliveryResponse | null;
}

/**
 * Delivers notifications. A run transition is matched against the enabled configurations of the
 * run's workspace and project; each matching one is sent in the background, bounded by the
 * timeout, so a receiver that is down or slow never holds the run. What a URL answered is kept as
 * the configuration's latest `delivery-responses`; mail goes through the admin SMTP settings when
 * they are enabled and is always recorded in the outbox.
 */
export class NotificationDispatcher {
  private readonly inFlight = new Set<Promise<void>>();
  /** The last delivery queued per configuration: the next one waits for it (see `inLane`). */
  private readonly lanes = new Map<string, Promise<void>>();
  /** Deliveries to one receiver reuse its connections instead of a handshake each. */
  private readonly agents = new KeptAliveAgents();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly atRest: SecretsAtRest,
    private readonly log: FastifyBaseLogger,
    private readonly options: DispatcherOptions,
  ) {}

  /** Starts the deliveries a transition calls for and returns at once; nothing here throws into the engine. */
  runTransition(transition: RunTransition): void {
    try {
      const found = this.match(transition);
      if (!found) return;
      for (const configuration of found.configurations) {
        this.track(this.inLane(configuration.id, () => this.deliver(configuration, found.notice)));
      }
    } catch (error) {
      this.log.warn({ err: error, run: transition.run.id }, 'notifications for a run transition could not be prepared');
    }
  }

  /** Resolves once every delivery started so far has finished (tests, the bench, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** Sends the verification message of `configuration` (not yet stored, or stored) and says how it went. */
  async verify(configuration: NotificationRow, token: string | null): Promise<Verification> {
    if (configuration.destinationType === 'email') {
      await this.mail(configuration, payloads.emailVerificationMessage(configuration.name));
      return { ok: true, response: null };
    }
    const body =
      configuration.destinationType === 'slack'
        ? payloads.slackVerificationPayload(configuration.name)
        : configuration.destinationType === 'microsoft-teams'
          ? payloads.teamsVerificationPayload(configuration.name)
          : payloads.genericVerificationPayload(configuration.id, configuration.name);
    const response = await this.post(
      configuration.url ?? '',
      JSON.stringify(body),
      configuration.destinationType === 'generic' ? token : null,
    );
    return { ok: response.successful === 'true', response };
  }

  /** The token of a stored configuration, unsealed for signing only. */
  tokenOf(configuration: NotificationRow): string | null {
    return configuration.tokenSealed === null ? null : this.atRest.open(configuration.tokenSealed);
  }

  /**
   * Deliveries to one configuration go out one after another, in the order of the transitions
   * that made them, so a receiver sees a run's status changes in order (sent side by side, a
   * later one could overtake an earlier one on another connection). A delivery that fails or
   * times out lets the next one go.
   */
  private inLane(configurationId: string, work: () => Promise<void>): Promise<void> {
    const delivered = (this.lanes.get(configurationId) ?? Promise.resolve()).then(work);
    const done = delivered.catch(() => undefined);
    this.lanes.set(configurationId, done);
    void done.then(() => {
      if (this.lanes.get(configurationId) === done) this.lanes.delete(configurationId);
    });
    return delivered;
  }

  private track(work: Promise<void>): void {
    const tracked = work
      .catch((error: unknown) => this.log.warn({ err: error }, 'a notification delivery failed'))
      .finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private match(transition: RunTransition): { configurations: NotificationRow[]; notice: RunNotice } | null {
    const { run, to } = transition;
    if (run.planOnly) return null; // Speculative plans notify no one.
    const event = runTrigger(to, run.autoApply);
    if (!event) return null;
    const workspace = findWorkspace(this.db, run.workspaceId);
    const organization = workspace && organizationsRepo.findOrganizationById(this.db, workspace.organizationId);
    if (!workspace || !organization) return null;
    if ((workspace.executionMode ?? organizationDefaultMode(organization)) === 'local') return null;
    const configurations = repo.enabledForWorkspace(this.db, workspace.id, workspace.projectId, event.trigger);
    if (configurations.length === 0) return null;
    const origin = this.options.originOf(run.id) ?? this.options.fallbackOrigin;
    const org = encodeURIComponent(organization.name);
    const ws = encodeURIComponent(workspace.name);
    const usernameOf = (who: RunRow['createdBy']) => (who?.kind === 'user' ? (findUserById(this.db, who.id)?.username ?? null) : null);
    const notice: RunNotice = {
      ...event,
      runId: run.id,
      runUrl: `${origin}/app/${org}/${ws}/runs/${run.id}`,
      runMessage: run.message,
      runCreatedAt: isoTimestamp(run.createdAt),
      runCreatedBy: usernameOf(run.createdBy),
      runStatus: to,
      runUpdatedAt: run.statusTimestamps[`${to.replace(/_/g, '-')}-at`] ?? isoTimestamp(this.clock.now()),
      runUpdatedBy: to === 'pending' ? usernameOf(run.createdBy) : to === 'applying' ? usernameOf(run.confirmedBy) : null,
      workspaceId: workspace.id,
      workspaceName: workspace.name,
      workspaceUrl: `${origin}/app/${org}/workspaces/${ws}`,
      organizationName: organization.name,
    };
    return { configurations, notice };
  }

  private async deliver(configuration: NotificationRow, notice: RunNotice): Promise<void> {
    if (configuration.destinationType === 'email') {
      await this.mail(configuration, payloads.emailRunMessage(notice));
      return;
    }
    const body =
      configuration.destinationType === 'slack'
        ? payloads.slackRunPayload(notice)
        : configuration.destinationType === 'microsoft-teams'
          ? payloads.teamsRunPayload(notice)
          : payloads.genericRunPayload(configuration.id, notice);
    const token = configuration.destinationType === 'generic' ? this.tokenOf(configuration) : null;
    const response = await this.post(configuration.url ?? '', JSON.stringify(body), token);
    repo.recordDeliveryResponse(this.db, configuration.id, response);
  }

  /** One POST, bounded by the timeout; any failure (refused, timed out, not 2xx) is an unsuccessful response. */
  private async post(url: string, body: string, token: string | null): Promise<DeliveryResponse> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'understudy-notifications' };
    if (token) headers[SIGNATURE_HEADER] = createHmac('sha512', token).update(body).digest('hex');
    const sentAt = isoTimestamp(this.clock.now()).replace(/\.\d{3}Z$/, 'Z');
    try {
      const answer = await postOnce(this.agents, url, body, headers, this.options.timeoutMs, BODY_KEPT);
      const answerHeaders: Record<string, string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined) answerHeaders[name.toLowerCase()] = Array.isArray(value) ? value : [value];
      }
      return {
        url,
        body: answer.body,
        code: String(answer.status),
        headers: answerHeaders,
        'sent-at': sentAt,
        successful: answer.status >= 200 && answer.status < 300 ? 'true' : 'false',
      };
    } catch (failure) {
      const reason = failure instanceof Error ? ((failure.cause as Error | undefined)?.message ?? failure.message) : String(failure);
      return { url, body: reason, code: '', headers: {}, 'sent-at': sentAt, successful: 'false' };
    }
  }

  /**
   * Mails every recipient (the configured addresses and users): through the SMTP server when the
   * admin mail settings are enabled, else kept in the outbox only. A mail the server refuses is
   * logged and not recorded as sent.
   */
  private async mail(configuration: NotificationRow, message: { subject: string; text: string }): Promise<void> {
    const recipients = new Set(configuration.emailAddresses);
    for (const id of configuration.emailUserIds) {
      const user = findUserById(this.db, id);
      if (user) recipients.add(user.email);
    }
    const settings = readSettings(this.db, 'smtp');
    const viaSmtp = settings['enabled'] === true && typeof settings['host'] === 'string' && settings['host'] !== '';
    const sender = typeof settings['sender'] === 'string' && settings['sender'] !== '' ? settings['sender'] : DEFAULT_SENDER;
    for (const to of recipients) {
      if (viaSmtp) {
        const server = {
          host: settings['host'] as string,
          port: settings['port'] as number,
          auth: settings['auth'] as 'none' | 'plain' | 'login',
          username: settings['username'] as string,
          password: settings['password'] as string,
        };
        const outcome = await sendMail(server, { from: sender, to, ...message }, this.options.timeoutMs);
        if (!outcome.ok) {
          this.log.warn({ configuration: configuration.id, reason: outcome.reason }, 'a notification mail was refused');
          continue;
        }
      }
      insertOutbox(this.db, {
        id: newId('msg'),
        kind: 'mail',
        deliveredVia: viaSmtp ? 'smtp' : 'outbox',
        sender,
        recipient: to,
        subject: message.subject,
        body: message.text,
        sentAt: this.clock.now(),
      });
    }
  }
}
