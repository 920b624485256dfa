import { type ErrorStatus } from '@market/shared/http';
import { type NotifyErrorCode } from '../domain/errors';

/** What notify's own refusals are answered with: it has none, the kit's codes are known everywhere (ADR 0041). */
export const notifyErrorStatuses = {} as const satisfies Record<NotifyErrorCode, ErrorStatus>;
