import type { EngineFactory } from '../context.js';
import { approleMethod } from './approle.js';
import { certMethod } from './cert.js';
import { jwtMethod } from './jwt/method.js';
import { userpassMethod } from './userpass.js';

/** Auth methods that can be enabled under `auth/`, by type (`token/` is built in). */
export const AUTH_METHODS = new Map<string, EngineFactory>([
  ['userpass', userpassMethod],
  ['approle', approleMethod],
  ['cert', certMethod],
  ['jwt', jwtMethod('jwt')],
  ['oidc', jwtMethod('oidc')],
]);
