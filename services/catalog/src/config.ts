import { z } from '@market/contracts';
import { ConfigError, dataEncryptionShape, inDevelopment } from '@market/shared/config';

export const catalogEnvShape = {
  /** open uploads must carry it in `X-Upload-Token`; required unless NODE_ENV=development */
  OPEN_UPLOAD_TOKEN: z.string().min(16).max(200).optional(),
  /** the gateway's limit for the open upload (same variable); a larger body is refused with 413 and recorded */
  OPEN_UPLOAD_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  /** seals account credentials and raw open uploads */
  ...dataEncryptionShape,
};

/**
 * Without a token anyone could fill the review queue and learn which admin names exist from
 * 201 against 422, so only development, said by name, starts without one.
 */
export function openUploadToken(config: { NODE_ENV: string; OPEN_UPLOAD_TOKEN?: string }): string | undefined {
  if (!inDevelopment(config) && !config.OPEN_UPLOAD_TOKEN) {
    throw new ConfigError(`NODE_ENV is ${config.NODE_ENV}, not development: OPEN_UPLOAD_TOKEN must be set (open uploads would be unauthenticated)`);
  }
  return config.OPEN_UPLOAD_TOKEN;
}
