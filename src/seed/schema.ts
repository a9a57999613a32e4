import { Type, type Static } from '@sinclair/typebox';

const OrganizationAccess = Type.Record(Type.String(), Type.Boolean());

const SeedWorkspace = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 90, pattern: '^[A-Za-z0-9_-]+$' }),
    description: Type.Optional(Type.String()),
    'execution-mode': Type.Optional(Type.Union([Type.Literal('remote'), Type.Literal('local')])),
    /** An exact release or a constraint, as the API takes it; `terraform-version` is the same field. */
    'tool-version': Type.Optional(Type.String({ minLength: 1 })),
    'terraform-version': Type.Optional(Type.String({ minLength: 1 })),
    'auto-apply': Type.Optional(Type.Boolean()),
    'global-remote-state': Type.Optional(Type.Boolean()),
    /** Tag names, in order (created in the organization as needed). */
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9](?:[A-Za-z0-9:_-]*[A-Za-z0-9])?$' }))),
  },
  { additionalProperties: false },
);

const SeedRunTask = Type.Object(
  {
    name: Type.String({ minLength: 1, pattern: '^[A-Za-z0-9_-]+$' }),
    url: Type.String({ pattern: '^https?://' }),
    description: Type.Optional(Type.String()),
    'hmac-key': Type.Optional(Type.String()),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const SeedPolicy = Type.Object({ name: Type.String({ minLength: 1 }), policy: Type.String() }, { additionalProperties: false });

const SeedSecretsToken = Type.Object(
  {
    /** The token value itself, fixed so a CI job can export it. */
    id: Type.String({ minLength: 1 }),
    /** Fixed accessor; a random one when omitted. */
    accessor: Type.Optional(Type.String({ minLength: 1, pattern: '^[A-Za-z0-9._-]+$' })),
    policies: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    'no-default-policy': Type.Optional(Type.Boolean()),
    'display-name': Type.Optional(Type.String()),
    meta: Type.Optional(Type.Record(Type.String(), Type.String())),
    /** A duration such as "24h"; the token never expires when omitted. */
    ttl: Type.Optional(Type.String({ minLength: 1 })),
    /** Cubbyhole entries of this token: path -> the entry's data. */
    cubbyhole: Type.Optional(Type.Record(Type.String({ minLength: 1 }), Type.Record(Type.String(), Type.Unknown()))),
  },
  { additionalProperties: false },
);

export const SeedSchema = Type.Object(
  {
    /** Without users (or with an empty list) the seed has the built-in site administrator (seed.ts). */
    users: Type.Optional(
      Type.Array(
        Type.Object(
          {
            username: Type.String({ minLength: 1 }),
            email: Type.String({ minLength: 3 }),
            'site-admin': Type.Optional(Type.Boolean()),
            /** Extra user tokens, for tests that need a known non-admin token. */
            tokens: Type.Optional(Type.Array(Type.String({ minLength: 8 }))),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    organizations: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({ minLength: 1 }),
            email: Type.String({ minLength: 3 }),
            owners: Type.Optional(Type.Array(Type.String())),
            teams: Type.Optional(
              Type.Array(
                Type.Object(
                  {
                    name: Type.String({ minLength: 1 }),
                    'organization-access': Type.Optional(OrganizationAccess),
                    members: Type.Optional(Type.Array(Type.String())),
                  },
                  { additionalProperties: false },
                ),
              ),
            ),
            'membership-limit': Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
            /** Invitations to this organization start active, as if accepted at once. */
            'auto-accept-invitations': Type.Optional(Type.Boolean()),
            entitlements: Type.Optional(Type.Record(Type.String(), Type.Union([Type.Boolean(), Type.Number()]))),
            workspaces: Type.Optional(Type.Array(SeedWorkspace)),
            'run-tasks': Type.Optional(Type.Array(SeedRunTask)),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    /**
     * Administrator settings by document (`general`, `cost-estimation`, `saml`, `smtp`, `sms` or
     * `twilio`, `customization`), attributes as a PATCH takes them; checked by the same rules.
     */
    'admin-settings': Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()))),
    secrets: Type.Optional(
      Type.Object(
        {
          /** `false`: no `secret/`, `pki/` and `database/` beside the seed's own mounts (see seed.ts). */
          'default-mounts': Type.Optional(Type.Boolean()),
          mounts: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  path: Type.String({ minLength: 1 }),
                  type: Type.String({ minLength: 1 }),
                  description: Type.Optional(Type.String()),
                  /** Engine options, as `sys/mounts` takes them (`{"version": "2"}` for the key/value engine). */
                  options: Type.Optional(Type.Record(Type.String(), Type.String())),
                },
                { additionalProperties: false },
              ),
            ),
          ),
          policies: Type.Optional(Type.Array(SeedPolicy)),
          tokens: Type.Optional(Type.Array(SeedSecretsToken)),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: true },
);

export type Seed = Static<typeof SeedSchema>;
export type SeedWorkspaceSpec = Static<typeof SeedWorkspace>;
export type SeedRunTaskSpec = Static<typeof SeedRunTask>;
export type SeedSecretsTokenSpec = Static<typeof SeedSecretsToken>;
