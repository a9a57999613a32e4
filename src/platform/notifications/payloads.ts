/**
 * The bodies a notification sends, one builder per destination. Generic receivers get the
 * documented version-1 JSON; Slack and Microsoft Teams get their incoming-webhook formats; email
 * gets a plain-text message. Builders are pure: the delivery module signs and sends.
 */

/** What one run notification is about, resolved from the store by the delivery module. */
export interface RunNotice {
  trigger: string;
  message: string;
  runId: string;
  runUrl: string;
  runMessage: string;
  runCreatedAt: string;
  runCreatedBy: string | null;
  runStatus: string;
  runUpdatedAt: string;
  runUpdatedBy: string | null;
  workspaceId: string;
  workspaceName: string;
  workspaceUrl: string;
  organizationName: string;
}

/** The generic version-1 payload of a run event (`notifications` always holds one entry). */
export function genericRunPayload(configurationId: string, notice: RunNotice): Record<string, unknown> {
  return {
    payload_version: 1,
    notification_configuration_id: configurationId,
    run_url: notice.runUrl,
    run_id: notice.runId,
    run_message: notice.runMessage,
    run_created_at: notice.runCreatedAt,
    run_created_by: notice.runCreatedBy,
    workspace_id: notice.workspaceId,
    workspace_name: notice.workspaceName,
    organization_name: notice.organizationName,
    notifications: [
      {
        message: notice.message,
        trigger: notice.trigger,
        run_status: notice.runStatus,
        run_updated_at: notice.runUpdatedAt,
        run_updated_by: notice.runUpdatedBy,
      },
    ],
  };
}

/** "Send a test" and the verification on save: the version-1 shape with every run and workspace field null. */
export function genericVerificationPayload(configurationId: string, name: string): Record<string, unknown> {
  return {
    payload_version: 1,
    notification_configuration_id: configurationId,
    run_url: null,
    run_id: null,
    run_message: null,
    run_created_at: null,
    run_created_by: null,
    workspace_id: null,
    workspace_name: null,
    organization_name: null,
    notifications: [
      { message: `Verification of ${name}`, trigger: 'verification', run_status: null, run_updated_at: null, run_updated_by: null },
    ],
  };
}

const COLOR: Record<string, string> = {
  'run:completed': '#2eb67d',
  'run:errored': '#e01e5a',
  'run:needs_attention': '#ecb22e',
};
const colorOf = (trigger: string) => COLOR[trigger] ?? '#5c4ee5';

/** A Slack incoming-webhook message: one attachment with the workspace link, the run and the event. */
export function slackRunPayload(notice: RunNotice): Record<string, unknown> {
  return {
    username: 'understudy',
    attachments: [
      {
        fallback: `${notice.message}: ${notice.organizationName}/${notice.workspaceName} run ${notice.runId}`,
        color: colorOf(notice.trigger),
        author_name: `${notice.organizationName}/${notice.workspaceName}`,
        author_link: notice.workspaceUrl,
        title: notice.runId,
        title_link: notice.runUrl,
        text: notice.runMessage,
        fields: [
          { title: 'Event', value: notice.message, short: true },
          { title: 'Status', value: notice.runStatus, short: true },
          { title: 'Created by', value: notice.runCreatedBy ?? 'understudy', short: true },
        ],
        ts: Math.floor(Date.parse(notice.runUpdatedAt) / 1000),
      },
    ],
  };
}

export function slackVerificationPayload(name: string): Record<string, unknown> {
  return { username: 'understudy', text: `Verification of ${name}` };
}

/** A Microsoft Teams connector card (MessageCard) with the same facts. */
export function teamsRunPayload(notice: RunNotice): Record<string, unknown> {
  return {
    '@type': 'MessageCard',
    '@context': 'https://schema.org/extensions',
    summary: `${notice.message}: ${notice.workspaceName}`,
    themeColor: colorOf(notice.trigger).slice(1),
    title: notice.message,
    sections: [
      {
        activityTitle: `[${notice.organizationName}/${notice.workspaceName}](${notice.workspaceUrl})`,
        activitySubtitle: notice.runMessage,
        facts: [
          { name: 'Run', value: `[${notice.runId}](${notice.runUrl})` },
          { name: 'Status', value: notice.runStatus },
          { name: 'Created by', value: notice.runCreatedBy ?? 'understudy' },
          { name: 'Updated at', value: notice.runUpdatedAt },
        ],
      },
    ],
  };
}

export function teamsVerificationPayload(name: string): Record<string, unknown> {
  return {
    '@type': 'MessageCard',
    '@context': 'https://schema.org/extensions',
    summary: `Verification of ${name}`,
    text: `Verification of ${name}`,
  };
}

/** The email of a run event: subject and plain text with the workspace link, the run link and the event. */
export function emailRunMessage(notice: RunNotice): { subject: string; text: string } {
  return {
    subject: `${notice.message}: ${notice.organizationName}/${notice.workspaceName}`,
    text: [
      `${notice.message} in workspace ${notice.organizationName}/${notice.workspaceName}.`,
      '',
      `Workspace: ${notice.workspaceUrl}`,
      `Run: ${notice.runUrl}`,
      `Run message: ${notice.runMessage}`,
      `Status: ${notice.runStatus} at ${notice.runUpdatedAt}`,
      `Event: ${notice.trigger}`,
    ].join('\n'),
  };
}

export function emailVerificationMessage(name: string): { subject: string; text: string } {
  return { subject: `Verification of ${name}`, text: `This message verifies the notification configuration "${name}".` };
}
