import { useEffect } from 'react';
import { useSearchParams } from 'react-router';
import { Alert, Button, Card, Form, Input, Space, Typography } from 'antd';
import { useCustom, useLogin, useSetLocale } from '@refinedev/core';
import { currentLocale, t } from '../i18n';
import type { LoginInput } from '../auth-provider';
import { problemText } from '../components/ProblemAlert';

interface Captcha {
  captcha_id: string;
  image: string;
}

export function LoginPage() {
  const [params] = useSearchParams();
  const { mutate: login, isPending, data } = useLogin<LoginInput>();
  const setLocale = useSetLocale();
  const [form] = Form.useForm();
  // a captcha is good for one attempt: never served from the cache, read again after a refusal
  const { query } = useCustom<Captcha>({ url: '/api/admin/auth/captcha', method: 'get', errorNotification: false, queryOptions: { gcTime: 0, staleTime: 0, retry: false } });
  const captcha = query.data?.data ?? null;
  const captchaError = query.error ? problemText(query.error) : null;
  const refresh = () => {
    form.setFieldValue('captcha_code', '');
    void query.refetch();
  };
  useEffect(() => {
    if (data && !data.success) refresh();
    // only a new login answer asks for a new captcha
  }, [data]);

  return (
    <main style={{ minHeight: '100vh', display: 'grid', placeItems: 'center', background: '#f0f2f5' }}>
      <Card style={{ width: 380 }}>
        <Typography.Title level={3}>{t('login.title')}</Typography.Title>
        {params.get('expired') ? <Alert type="warning" message={t('login.expired')} style={{ marginBottom: 16 }} /> : null}
        {data && !data.success ? (
          <Alert role="alert" type="error" message={`${data.error?.name}: ${data.error?.message}`} style={{ marginBottom: 16 }} />
        ) : null}
        {captchaError ? <Alert role="alert" type="error" message={captchaError} style={{ marginBottom: 16 }} /> : null}
        <Form
          form={form}
          layout="vertical"
          onFinish={(values: { username: string; password: string; captcha_code: string }) =>
            captcha && login({ ...values, captcha_id: captcha.captcha_id })
          }
        >
          <Form.Item label={t('login.username')} name="username" rules={[{ required: true }]}>
            <Input autoComplete="username" autoFocus />
          </Form.Item>
          <Form.Item label={t('login.password')} name="password" rules={[{ required: true }]}>
            <Input.Password autoComplete="current-password" />
          </Form.Item>
          <Form.Item label={t('login.captcha')} required>
            <Space>
              <Form.Item name="captcha_code" noStyle rules={[{ required: true }]}>
                <Input aria-label={t('login.captcha')} style={{ width: 140 }} autoComplete="off" />
              </Form.Item>
              <button type="button" onClick={refresh} aria-label={t('login.captchaImage')} style={{ border: 0, padding: 0, background: 'none', cursor: 'pointer' }}>
                {captcha ? <img src={captcha.image} alt={t('login.captcha')} height={40} /> : null}
              </button>
            </Space>
          </Form.Item>
          <Button type="primary" htmlType="submit" block loading={isPending}>
            {t('login.submit')}
          </Button>
        </Form>
        <Button type="link" onClick={() => setLocale(currentLocale() === 'en' ? 'zh-CN' : 'en')} style={{ marginTop: 8 }}>
          {t('app.language')}
        </Button>
      </Card>
    </main>
  );
}
