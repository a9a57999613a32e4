/**
 * The platform's two editions. Everything that differs between them is decided here, so the
 * README's edition table and the code cannot drift apart; routes ask these questions instead of
 * comparing the edition string themselves.
 */
export type Edition = 'self-hosted' | 'hosted';

export const EDITIONS: readonly Edition[] = ['self-hosted', 'hosted'];

export interface EditionRule {
  /** What differs, for the README. */
  what: string;
  'self-hosted': string;
  hosted: string;
}

/** The differences, as the README lists them. */
export const EDITION_RULES: readonly EditionRule[] = [
  { what: 'Admin settings API (`/api/v2/admin/…`)', 'self-hosted': 'present', hosted: '404' },
  { what: '`registry_name` of registry modules', 'self-hosted': '`private` only', hosted: '`private` or `public`' },
  { what: 'Public-module curation and the public registry proxy', 'self-hosted': 'absent', hosted: 'present' },
  {
    what: 'Hosted-only workspace attributes (`assessments-enabled`, `last-assessment-result-at`, `current-assessment-result`)',
    'self-hosted': 'neither accepted (ignored, like any unknown attribute) nor returned',
    hosted: 'accepted and returned (`last-assessment-result-at` only once an assessment ran, so never here)',
  },
  {
    what: 'Default of `global-remote-state` on new workspaces',
    'self-hosted': 'the admin setting `default-remote-state-access`',
    hosted: '`false`',
  },
  {
    // Not a difference, but an exception to the first row: the Go client's test helpers set up paid plans in both.
    what: 'Plans and subscriptions (`/api/v2/admin/feature-sets`, `/api/v2/admin/organizations/:org/subscription`)',
    'self-hosted': 'present (site administrators)',
    hosted: 'present (site administrators)',
  },
  {
    what:
      'Installation administration (`/api/v2/admin/organizations`, `/api/v2/admin/workspaces`, `/api/v2/admin/runs`, ' +
      '`DELETE /api/v2/admin/users/:id`, `/api/v2/admin/users/:id/actions/…`)',
    'self-hosted': 'present (site administrators; 404 for anyone else)',
    hosted: '404',
  },
  {
    // understudy's own extension for building a test world (README, differences: "Creating users").
    what: 'Users (`GET`/`POST /api/v2/admin/users`)',
    'self-hosted': 'present (site administrators)',
    hosted: 'present (site administrators)',
  },
  {
    what: 'Audit-trail tokens (`?token=audit-trails`) and `GET /api/v2/organization/audit-trail`',
    'self-hosted': 'absent (the token parameter is a 400, the feed a 404)',
    hosted: 'present',
  },
  {
    what: 'Organization audit configuration (`/api/v2/organizations/:org/audit-configuration`)',
    'self-hosted': 'absent (404)',
    hosted: 'present: the switches and their timestamps are kept; nothing is streamed',
  },
  {
    what:
      'Data retention policies (`/api/v2/organizations/:org/relationships/data-retention-policy`, ' +
      '`/api/v2/workspaces/:id/relationships/data-retention-policy`)',
    'self-hosted':
      "present: shown as the owner's `data-retention-policy` relationship; " +
      '`delete-older-than-n-days` soft deletes old backing data on the clock',
    hosted: '404',
  },
  {
    what:
      'Backing-data actions (`POST /api/v2/state-versions/:id/actions/…_backing_data`, ' +
      '`POST /api/v2/configuration-versions/:id/actions/…_backing_data`)',
    'self-hosted': 'present',
    hosted: '404',
  },
  { what: 'IP ranges (`GET /api/meta/ip-ranges`)', 'self-hosted': '404', hosted: 'present: the loopback ranges for every kind of traffic' },
  {
    what: 'Version headers on every `/api/v2` response',
    'self-hosted': '`TFP-AppName: Terraform Enterprise`, `X-TFE-Version: v202302-1`, `TFP-API-Version: 2.6`',
    hosted: '`TFP-AppName: HCP Terraform`, no `X-TFE-Version`, `TFP-API-Version: 2.6`',
  },
  { what: 'API rate limit and the other admin settings', 'self-hosted': 'the seed, then `PATCH /api/v2/admin/…`', hosted: 'the seed only' },
];

/** The questions code asks of the edition. */
export const editionAllows = {
  adminApi: (edition: Edition) => edition === 'self-hosted',
  publicRegistry: (edition: Edition) => edition === 'hosted',
  hostedOnlyAttributes: (edition: Edition) => edition === 'hosted',
  remoteStateAccessSetting: (edition: Edition) => edition === 'self-hosted',
  auditTrails: (edition: Edition) => edition === 'hosted',
  dataRetentionPolicies: (edition: Edition) => edition === 'self-hosted',
  backingDataActions: (edition: Edition) => edition === 'self-hosted',
  ipRanges: (edition: Edition) => edition === 'hosted',
  /** `X-TFE-Version`: a self-hosted release says which it is; the hosted service sends none. */
  releaseHeader: (edition: Edition) => edition === 'self-hosted',
} as const;
