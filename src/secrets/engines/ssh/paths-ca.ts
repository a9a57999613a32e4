import { badRequest, notFound } from '../../../core/errors.js';
import type { HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import type { CaKeys } from './ca.js';
import { generateSshKey, KeyRequestError, parsePrivateKey } from './private-keys.js';
import { authorizedKey, parseAuthorizedKey, publicKeyOf } from './wire.js';

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Generates or imports the key pair; both halves are checked before anything is stored. */
async function writeCa(request: HandlerRequest, keys: CaKeys): Promise<LogicalResponse | undefined> {
  const { fields } = request;
  const publicText = fields.get<string>('public_key');
  const privateText = fields.get<string>('private_key');
  const generateAsked = fields.has('generate_signing_key');
  let generate: boolean;
  if (generateAsked && fields.get<boolean>('generate_signing_key')) {
    if (publicText !== '' || privateText !== '')
      throw badRequest('public_key and private_key must not be set when generate_signing_key is set to true');
    generate = true;
  } else if (generateAsked || (publicText !== '' && privateText !== '')) {
    if (publicText === '') throw badRequest('missing public_key');
    if (privateText === '') throw badRequest('missing private_key');
    generate = false;
  } else if (publicText === '' && privateText === '') {
    generate = true;
  } else {
    throw badRequest('only one of public_key and private_key set; both must be set to use, or both must be blank to auto-generate');
  }

  let key;
  let publicKey: string;
  if (generate) {
    try {
      key = await generateSshKey(fields.get<string>('key_type'), fields.get<number>('key_bits'));
    } catch (error) {
      if (error instanceof KeyRequestError) throw badRequest(error.message);
      throw error;
    }
    publicKey = authorizedKey(publicKeyOf(key));
  } else {
    try {
      key = parsePrivateKey(privateText);
      publicKeyOf(key);
    } catch (error) {
      throw badRequest(`Unable to parse private_key as an SSH private key: ${errorText(error)}`);
    }
    try {
      parseAuthorizedKey(publicText);
    } catch (error) {
      throw badRequest(`Unable to parse public_key as an SSH public key: ${errorText(error)}`);
    }
    if (!parseAuthorizedKey(publicText).blob.equals(publicKeyOf(key).blob)) throw badRequest('public_key does not match private_key');
    publicKey = publicText;
  }
  if (keys.configured(request.storage)) throw badRequest('keys are already configured; delete them before reconfiguring');
  keys.store(request.storage, key, publicKey);
  return generate ? { data: { public_key: publicKey } } : undefined;
}

export function caPaths(keys: CaKeys): PathSpec[] {
  return [
    {
      pattern: 'config/ca',
      summary: 'Generate or import the CA key pair that signs certificates; read its public half.',
      fields: {
        private_key: { type: 'string', description: 'Private half of an imported CA key (PEM).', default: '' },
        public_key: { type: 'string', description: 'Public half of an imported CA key (authorized_keys form).', default: '' },
        generate_signing_key: { type: 'bool', description: 'Generate the key pair here.', default: true },
        key_type: {
          type: 'string',
          description: 'ssh-rsa, ecdsa-sha2-nistp256/384/521, ssh-ed25519, or rsa, ec, ed25519.',
          default: 'ssh-rsa',
        },
        key_bits: { type: 'int', description: 'RSA modulus size, or the EC curve size for `ec`.', default: 0 },
      },
      operations: {
        update: (request) => writeCa(request, keys),
        read: (request) => {
          const publicKey = keys.publicKey(request.storage);
          if (publicKey === undefined) throw badRequest("keys haven't been configured yet");
          return { data: { public_key: publicKey } };
        },
        delete: (request) => {
          keys.remove(request.storage);
          return undefined;
        },
      },
    },
    {
      pattern: 'public_key',
      summary: "The CA's public key as text, for sshd's TrustedUserCAKeys.",
      unauthenticated: ['read'],
      operations: {
        read: (request) => {
          const publicKey = keys.publicKey(request.storage);
          if (publicKey === undefined) throw notFound();
          return { raw: { status: 200, contentType: 'text/plain', body: publicKey } };
        },
      },
    },
  ];
}
