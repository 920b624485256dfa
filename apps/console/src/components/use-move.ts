import { useCustomMutation, type BaseRecord } from '@refinedev/core';
import type { paths } from '@market/sdk';
import type { ProblemError } from '../data/problem';
import { t } from '../i18n';

/**
 * A move of the back office (approve, reject, freeze, arbitrate, a withdrawal decision…) through
 * the data provider's `custom`: `move('/api/admin/listings/{id}/approve', { id }, body)` resolves
 * with the API's answer and rejects with the ProblemError. Success is announced by the
 * notificationProvider; a refusal too when `notifyRefusal` (a button), not when a dialog shows it.
 */
export function useMove() {
  const { mutateAsync } = useCustomMutation<BaseRecord, ProblemError>();
  return async <T = BaseRecord>(url: keyof paths, path: Record<string, string>, body: object = {}, { notifyRefusal = false } = {}): Promise<T> => {
    const answer = await mutateAsync({
      url,
      method: 'post',
      values: body,
      meta: { path },
      successNotification: () => ({ message: t('common.done'), type: 'success' }),
      errorNotification: notifyRefusal ? (error) => ({ message: error?.code ?? 'NETWORK_ERROR', description: error?.detail, type: 'error' }) : false,
    });
    return answer.data as T;
  };
}
