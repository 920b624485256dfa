import { useState } from 'react';
import { Button, Form, Input, Modal, Typography, type TableColumnsType } from 'antd';
import { useUpdate } from '@refinedev/core';
import type { Schema } from '@market/sdk';
import { isSystemConfigKey, SYSTEM_CONFIG_SCHEMAS } from '@market/contracts';
import { useAllowed } from '../use-allowed';
import { t } from '../i18n';
import { ListPage, type ListPageState } from '../components/ListPage';
import { ProblemAlert } from '../components/ProblemAlert';
import { configDescription, configValue, when } from '../components/format';

type Config = Schema<'SystemConfig'>;

/** The value typed as JSON, checked against the key's schema from the contracts before it is sent. */
function checkValue(key: string, text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: t('config.invalidJson') };
  }
  if (!isSystemConfigKey(key)) return { ok: true, value };
  const parsed = SYSTEM_CONFIG_SCHEMAS[key].safeParse(value);
  if (!parsed.success) return { ok: false, message: parsed.error.issues.map((i) => i.message).join('; ') };
  return { ok: true, value };
}

function EditConfig({ config, onSaved }: { config: Config; onSaved: () => void }) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState(JSON.stringify(config.value));
  const [error, setError] = useState<unknown>(null);
  const { mutateAsync } = useUpdate();
  const check = checkValue(config.key, text);
  const save = async () => {
    if (!check.ok) return;
    try {
      await mutateAsync({
        resource: 'configs',
        id: config.key,
        values: { value: check.value },
        mutationMode: 'pessimistic',
        successNotification: () => ({ message: t('common.done'), type: 'success' }),
        errorNotification: false,
      });
      setOpen(false);
      onSaved();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <>
      <Button onClick={() => setOpen(true)} aria-label={`${t('config.edit')} ${config.key}`}>
        {t('config.edit')}
      </Button>
      <Modal title={config.key} open={open} onCancel={() => setOpen(false)} onOk={save} okText={t('common.save')} cancelText={t('common.cancel')} okButtonProps={{ disabled: !check.ok }}>
        {error ? <ProblemAlert error={error} /> : null}
        <Typography.Paragraph type="secondary">{configDescription(config.key, config.description)}</Typography.Paragraph>
        <Form layout="vertical">
          <Form.Item
            label={t('config.value')}
            htmlFor="config-value"
            validateStatus={check.ok ? undefined : 'error'}
            help={check.ok ? configValue(config.key, check.value) : check.message}
          >
            <Input.TextArea id="config-value" rows={3} value={text} onChange={(e) => setText(e.target.value)} />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}

/** Each config's columns, its edit button for an admin allowed to edit. */
function useColumns({ list }: ListPageState<Config>): TableColumnsType<Config> {
  const edit = useAllowed('configs.edit');
  return [
    { title: t('config.key'), dataIndex: 'key' },
    { title: t('config.value'), dataIndex: 'value', render: (v: unknown, c) => <span title={JSON.stringify(v)}>{configValue(c.key, v)}</span> },
    { title: t('config.description'), dataIndex: 'description', render: (d: string, c) => configDescription(c.key, d) },
    { title: t('config.updated'), dataIndex: 'updated_at', render: when },
    { title: t('config.edit'), key: 'edit', render: (_, c) => (edit ? <EditConfig config={c} onSaved={list.reload} /> : null) },
  ];
}

/** Every system config with its value in its unit (¥, minutes, hours, %) and what it means. */
export default function Configs() {
  return <ListPage<Config> resource="configs" title={t('menu.configs')} rowKey="key" useColumns={useColumns} />;
}
