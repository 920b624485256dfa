// Production refuses the published development secrets (ADR 0055): a bench run in production makes up its own.
import { randomBytes } from 'node:crypto';

/** Fresh random secrets: the token secrets named, and the data and open-upload keys every production process needs. */
export function madeUpSecrets(tokenSecrets) {
  return {
    ...Object.fromEntries(tokenSecrets.map((k) => [k, randomBytes(32).toString('hex')])),
    DATA_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    OPEN_UPLOAD_TOKEN: randomBytes(32).toString('hex'),
  };
}
