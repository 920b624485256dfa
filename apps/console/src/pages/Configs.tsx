import { useEffect, useState } from 'react';
import { App, Button, Form, Input, Modal, Table, Typography } from 'antd';
import { ok, type Schema } from '@market/sdk';
import { isSystemConfigKey, SYSTEM_CONFIG_SCHEMAS } from '@market/contracts';
import { market } from '../session';
import { can } from '../access';
import { t } from '../i18n';
import { ProblemAlert } from '../components/ProblemAlert';
import { when } from '../components/format';

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
  const { message } = App.useApp();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState(JSON.stringify(config.value));
  const [error, setError] = useState<unknown>(null);
  const check = checkValue(config.key, text);
  const save = async () => {
    if (!check.ok) return;
    try {
      await ok(market.api.PUT('/api/admin/system-configs/{key}', { params: { path: { key: config.key } }, body: { value: check.value as Config['value'] } }));
      setOpen(false);
      void message.success(t('common.done'));
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
        <Typography.Paragraph type="secondary">{config.description}</Typography.Paragraph>
        <Form layout="vertical">
          <Form.Item label={t('config.value')} htmlFor="config-value" validateStatus={check.ok ? undefined : 'error'} help={check.ok ? undefined : check.message}>
            <Input.TextArea id="config-value" rows={3} value={text} onChange={(e) => setText(e.target.value)} />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}

export default function Configs() {
  const [state, setState] = useState<{ items?: Config[]; error?: unknown; loading: boolean }>({ loading: true });
  const load = () => {
    setState((s) => ({ ...s, loading: true }));
    ok(market.api.GET('/api/admin/system-configs')).then((r) => setState({ items: r.items, loading: false }), (error: unknown) => setState({ error, loading: false }));
  };
  useEffect(load, []);
  return (
    <>
      <Typography.Title level={3}>{t('menu.configs')}</Typography.Title>
      {state.error ? <ProblemAlert error={state.error} onRetry={load} /> : null}
      <Table<Config>
        aria-label={t('menu.configs')}
        rowKey="key"
        loading={state.loading}
        dataSource={state.items ?? []}
        pagination={false}
        columns={[
          { title: t('config.key'), dataIndex: 'key' },
          { title: t('config.value'), dataIndex: 'value', render: (v: unknown) => <code>{JSON.stringify(v)}</code> },
          { title: t('config.description'), dataIndex: 'description' },
          { title: t('config.updated'), dataIndex: 'updated_at', render: when },
          { title: t('config.edit'), key: 'edit', render: (_, c) => (can('configs.edit') ? <EditConfig config={c} onSaved={load} /> : null) },
        ]}
      />
    </>
  );
}
