/**
 * Routes whose request or response bodies are the secrets themselves: the request journal keeps
 * neither (its position rules would already hide their values; these keep even the shape out).
 * `type` is the mount's type, `relative` the path inside the mount.
 */
const ENGINE_RULES: Record<string, (relative: string) => boolean> = {
  kv: () => true,
  generic: () => true,
  cubbyhole: () => true,
  // Everything but key management carries plaintext, ciphertext, key material or random bytes.
  transit: (relative) => !/^(?:keys(?:\/|$)|config\/keys$|cache-config$)/.test(relative),
  // Issued and generated private keys, imported bundles.
  pki: (relative) =>
    /(?:^|\/)(?:issue|sign|sign-verbatim|sign-intermediate|sign-self-issued|exported|import|bundle)(?:\/|$)|^config\/ca$/.test(relative),
  // Generated credentials, and connection settings with the root password.
  database: (relative) => /^(?:creds|static-creds|config|rotate-root|rotate-role)(?:\/|$)/.test(relative),
  // Issued key pairs, an imported CA private key, one-time passwords and their checks.
  ssh: (relative) => /^(?:issue|creds|verify|config\/ca)(?:\/|$)/.test(relative),
  // Minted identity tokens (bearer credentials), and those handed in to be checked.
  identity: (relative) => /^oidc\/(?:token|introspect)(?:\/|$)/.test(relative),
  // Wrapping, and random bytes.
  system: (relative) => /^(?:wrapping\/|tools\/random)/.test(relative),
};

export function carriesSecretBodies(type: string, relative: string, wrapTtl: number): boolean {
  if (wrapTtl > 0) return true;
  return ENGINE_RULES[type]?.(relative) ?? false;
}
