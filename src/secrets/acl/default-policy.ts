/**
 * The built-in `default` policy every token gets unless created with `no_default_policy`. It is
 * stored like any other policy (so it can be read and edited), and the seed puts it back on reset.
 * The paths are the real service's; the wording is ours.
 */
export const DEFAULT_POLICY = `# Every token may inspect, renew and revoke itself.
path "auth/token/lookup-self" {
  capabilities = ["read"]
}
path "auth/token/renew-self" {
  capabilities = ["update"]
}
path "auth/token/revoke-self" {
  capabilities = ["update"]
}

# Its own capabilities on a path.
path "sys/capabilities-self" {
  capabilities = ["update"]
}

# Renewing and looking up a lease whose id the caller already holds (old and new paths).
path "sys/renew" {
  capabilities = ["update"]
}
path "sys/leases/renew" {
  capabilities = ["update"]
}
path "sys/leases/lookup" {
  capabilities = ["update"]
}

# The token's private scratch storage.
path "cubbyhole/*" {
  capabilities = ["create", "read", "update", "delete", "list"]
}

# Response wrapping and the hashing tool.
path "sys/wrapping/wrap" {
  capabilities = ["update"]
}
path "sys/wrapping/lookup" {
  capabilities = ["update"]
}
path "sys/wrapping/unwrap" {
  capabilities = ["update"]
}
path "sys/tools/hash" {
  capabilities = ["update"]
}
path "sys/tools/hash/*" {
  capabilities = ["update"]
}
`;
