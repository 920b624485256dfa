import { useState } from 'react';
import { Button, Form, Input, Modal } from 'antd';
import { t } from '../i18n';
import { ProblemAlert } from './ProblemAlert';

/** A button that asks for a reason and runs the action with it; a refused action shows its problem in the dialog. */
export function ReasonButton({
  label,
  reasonLabel,
  onSubmit,
  danger,
  disabled,
}: {
  label: string;
  reasonLabel: string;
  onSubmit: (reason: string) => Promise<unknown>;
  danger?: boolean;
  disabled?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [form] = Form.useForm<{ reason: string }>();
  const submit = async ({ reason }: { reason: string }) => {
    setBusy(true);
    setError(null);
    try {
      await onSubmit(reason);
      setOpen(false);
      form.resetFields();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button danger={danger} disabled={disabled} onClick={() => setOpen(true)}>
        {label}
      </Button>
      <Modal title={label} open={open} onCancel={() => setOpen(false)} onOk={() => form.submit()} okText={t('common.confirm')} cancelText={t('common.cancel')} confirmLoading={busy} destroyOnHidden>
        {error ? <ProblemAlert error={error} /> : null}
        <Form form={form} layout="vertical" onFinish={submit}>
          <Form.Item label={reasonLabel} name="reason" rules={[{ required: true, whitespace: true, max: 500 }]}>
            <Input.TextArea rows={3} />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}
