import { Form, Input } from 'antd';
import { FormDialog } from './FormDialog';

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
  return (
    <FormDialog<{ reason: string }> label={label} button={{ danger, disabled }} onSubmit={({ reason }) => onSubmit(reason)}>
      <Form.Item label={reasonLabel} name="reason" rules={[{ required: true, whitespace: true, max: 500 }]}>
        <Input.TextArea rows={3} />
      </Form.Item>
    </FormDialog>
  );
}
