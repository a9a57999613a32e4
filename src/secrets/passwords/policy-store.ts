import type { DbOrTx } from '../../store/store.js';
import { MountStorage } from '../storage/mount-storage.js';
import { DEFAULT_PASSWORD_POLICY, generatePassword, readPasswordPolicy, PasswordPolicyError } from './policy.js';

/** Password policies live in the system backend's storage, as in the real service. */
const SYSTEM_STORAGE = 'builtin-system';
const PREFIX = 'password_policy/';

interface StoredPolicy {
  policy: string;
}

/** Named password policies (`sys/policies/password/:name`) and password generation from them. */
export class PasswordPolicyStore {
  private readonly storage: MountStorage;

  constructor(db: DbOrTx) {
    this.storage = new MountStorage(db, SYSTEM_STORAGE);
  }

  raw(name: string): string | undefined {
    return this.storage.get<StoredPolicy>(`${PREFIX}${name}`)?.policy;
  }

  /** Checks the policy (parses and generates once, as the real service does) before storing it. */
  put(name: string, text: string): void {
    generatePassword(readPasswordPolicy(text));
    this.storage.put(`${PREFIX}${name}`, { policy: text } satisfies StoredPolicy);
  }

  delete(name: string): void {
    this.storage.delete(`${PREFIX}${name}`);
  }

  names(): string[] {
    return this.storage.list(PREFIX);
  }

  /** A password from the named policy, or from the default one when `name` is empty. */
  generate(name: string): string {
    if (name === '') return generatePassword(DEFAULT_PASSWORD_POLICY);
    const text = this.raw(name);
    if (text === undefined) throw new PasswordPolicyError(`password policy "${name}" does not exist`);
    return generatePassword(readPasswordPolicy(text));
  }
}
