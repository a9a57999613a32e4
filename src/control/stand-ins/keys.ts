import { generateKeyPair } from 'node:crypto';

/** A stand-in's key material: generated off the event loop, kept in the store as PKCS#8 PEM. */
export function generatePrivateKeyPem(kind: { rsaBits: number } | { curve: string }): Promise<string> {
  const encoding = { publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } } as const;
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, _publicKey: string, privateKey: string) => (error ? reject(error) : resolve(privateKey));
    if ('rsaBits' in kind) generateKeyPair('rsa', { modulusLength: kind.rsaBits, ...encoding }, done);
    else generateKeyPair('ec', { namedCurve: kind.curve, ...encoding }, done);
  });
}
