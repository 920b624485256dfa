import { problems } from '@market/shared';
import { nulCharacterErrors } from '../domain/text-safety';

/** 400 for input Postgres could not store, instead of a 500 from the driver. */
export function assertStorableText(value: unknown, path: string[] = []) {
  const errors = nulCharacterErrors(value, path);
  if (errors.length > 0) throw problems.validation(errors);
}
