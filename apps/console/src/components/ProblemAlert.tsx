import { Alert, Button } from 'antd';
import { toProblemError } from '../data/problem';
import { t } from '../i18n';

/** A failed call as the operator sees it: the problem's stable code and status, its detail and the fields it names. */
export function ProblemAlert({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { code, statusCode, detail, problem } = toProblemError(error);
  const message = statusCode ? `${code} · ${statusCode}` : code;
  const description = detail + (problem.errors.length ? `: ${problem.errors.map((e) => `${e.path} ${e.message}`).join('; ')}` : '');
  return (
    <Alert
      role="alert"
      type="error"
      showIcon
      message={message}
      description={description}
      action={onRetry ? <Button onClick={onRetry}>{t('common.retry')}</Button> : undefined}
      style={{ marginBottom: 16 }}
    />
  );
}

export function problemText(error: unknown): string {
  const { code, detail } = toProblemError(error);
  return `${code}: ${detail}`;
}
