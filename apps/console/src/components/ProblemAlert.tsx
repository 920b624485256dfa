import { Alert, Button } from 'antd';
import { ApiProblem } from '@market/sdk';
import { t } from '../i18n';

/** A failed call as the operator sees it: the problem's stable code and its message. */
export function ProblemAlert({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const problem = error instanceof ApiProblem ? error : null;
  const message = problem ? `${problem.code} · ${problem.status}` : 'NETWORK_ERROR';
  const detail = problem ? problem.detail + (problem.errors.length ? `: ${problem.errors.map((e) => `${e.path} ${e.message}`).join('; ')}` : '') : String(error);
  return (
    <Alert
      role="alert"
      type="error"
      showIcon
      message={message}
      description={detail}
      action={onRetry ? <Button onClick={onRetry}>{t('common.retry')}</Button> : undefined}
      style={{ marginBottom: 16 }}
    />
  );
}

export function problemText(error: unknown): string {
  return error instanceof ApiProblem ? `${error.code}: ${error.detail}` : String(error);
}
