import { Tag } from 'antd';
import { label, type Enum } from '../i18n';

/** A code the API answers (a status, a type, a channel) as a tag in the operator's language. */
export function Status({ kind, value, color }: { kind: Enum; value: string | null | undefined; color?: string }) {
  return <Tag color={color}>{label(kind, value)}</Tag>;
}
