import { type ReactNode, useState } from 'react';
import { Button, Form, Modal, type ButtonProps } from 'antd';
import { t } from '../i18n';
import { ProblemAlert } from './ProblemAlert';
import { useSubmit } from './use-submit';

/**
 * A button opening a form in a dialog: submitting runs the action with the form's values; the
 * dialog closes when it succeeds and shows the problem (code and message) when the server refuses.
 */
export function FormDialog<V extends object>({
  label,
  title = label,
  ariaLabel,
  button,
  okText = t('common.confirm'),
  initialValues,
  onSubmit,
  children,
}: {
  label: string;
  title?: string;
  ariaLabel?: string;
  button?: Pick<ButtonProps, 'danger' | 'disabled' | 'type' | 'style'>;
  okText?: string;
  initialValues?: Partial<V>;
  onSubmit: (values: V) => Promise<unknown>;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const { busy, error, run } = useSubmit(() => setOpen(false));
  const [form] = Form.useForm<V>();
  const submit = (values: V) => run(() => onSubmit(values));
  return (
    <>
      <Button {...button} aria-label={ariaLabel} onClick={() => setOpen(true)}>
        {label}
      </Button>
      <Modal title={title} open={open} onCancel={() => setOpen(false)} onOk={() => form.submit()} okText={okText} cancelText={t('common.cancel')} confirmLoading={busy} destroyOnHidden>
        {error ? <ProblemAlert error={error} /> : null}
        <Form form={form} layout="vertical" initialValues={initialValues} onFinish={submit} preserve={false}>
          {children}
        </Form>
      </Modal>
    </>
  );
}
