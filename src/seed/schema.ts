import { Type, type Static } from '@sinclair/typebox';

const OrganizationAccess = Type.Record(Type.String(), Type.Boolean());

export const SeedSchema = Type.Object(
  {
    users: Type.Array(
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
      { minItems: 1 },
    ),
    organizations: Type.Array(
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
        },
        { additionalProperties: false },
      ),
    ),
    secrets: Type.Optional(
      Type.Object(
        {
          mounts: Type.Optional(
            Type.Array(
              Type.Object(
                { path: Type.String({ minLength: 1 }), type: Type.String({ minLength: 1 }), description: Type.Optional(Type.String()) },
                { additionalProperties: false },
              ),
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: true },
);

export type Seed = Static<typeof SeedSchema>;
