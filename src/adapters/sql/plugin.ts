/**
 * The database plugin interface, modelled on the real secrets service's: initialize (and verify),
 * create a user, change a password, extend a user's validity, delete a user, close. Each plugin
 * owns one connection pool for one configured connection.
 */

/** A connection as configured: the URL template and the root credentials that fill it. */
export interface ConnectionSettings {
  /** May contain `{{username}}` and `{{password}}`. */
  connectionUrl: string;
  username: string;
  password: string;
  /** Leave the username and password unescaped when they go into the URL. */
  disableEscaping: boolean;
  /** Pool size (`max_open_connections`, 4 by default). */
  maxOpenConnections: number;
}

export interface NewUserInput {
  statements: string[];
  username: string;
  password: string;
  expiration: string;
}

export interface ChangePasswordInput {
  /** Empty: the plugin's default statement. */
  statements: string[];
  username: string;
  password: string;
}

export interface RenewUserInput {
  statements: string[];
  username: string;
  expiration: string;
}

export interface DeleteUserInput {
  /** Empty: the plugin's safe default (revoke what the user holds, then drop it). */
  statements: string[];
  username: string;
}

/** One open connection of one plugin type. Every method throws the driver's error as is. */
export interface SqlPlugin {
  /** Opens the pool; with `verify`, also makes one round trip so bad settings fail now. */
  initialize(verify: boolean): Promise<void>;
  /** Runs the creation statements; a failure leaves no user behind. */
  newUser(input: NewUserInput): Promise<void>;
  changePassword(input: ChangePasswordInput): Promise<void>;
  /** Extends a user's validity (renew statements); a no-op where the database has no such notion. */
  renewUser(input: RenewUserInput): Promise<void>;
  deleteUser(input: DeleteUserInput): Promise<void>;
  close(): Promise<void>;
}

/** How a plugin builds default usernames (the real service's templates). */
export interface UsernameShape {
  /** Characters kept of the token's display name; 0 leaves it out. */
  displayName: number;
  role: number;
  /** Append the Unix time. */
  unixTime: boolean;
  /** Longest name the database accepts. */
  maxLength: number;
}

export interface SqlPluginType {
  name: string;
  username: UsernameShape;
  /** `password`, and `rsa_private_key` where the plugin supports it. */
  credentialTypes: readonly string[];
  create(settings: ConnectionSettings): SqlPlugin;
}

/** Fills `{{key}}` placeholders; unknown placeholders stay as written, as the real service leaves them. */
export function fillTemplate(template: string, values: Record<string, string | undefined>): string {
  return template.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (whole, key: string) => values[key] ?? whole);
}

/**
 * The queries to run for a user: each statement filled (`{{name}}` and `{{username}}` are the
 * user) and split at `;`, empty ones skipped.
 */
export function renderStatements(
  statements: readonly string[],
  username: string,
  values: { password?: string; expiration?: string } = {},
): string[] {
  return statements
    .map((statement) => fillTemplate(statement, { name: username, username, ...values }))
    .flatMap((statement) => statement.split(';'))
    .map((query) => query.trim())
    .filter((query) => query !== '');
}

/** The connection URL with the root credentials in it (percent-escaped unless disabled). */
export function connectionUrlOf(settings: ConnectionSettings): string {
  const escape = (value: string) => (settings.disableEscaping ? value : encodeURIComponent(value));
  return fillTemplate(settings.connectionUrl, {
    username: escape(settings.username),
    password: escape(settings.password),
    name: escape(settings.username),
  });
}
