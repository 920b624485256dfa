import { useCallback, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { Alert, Button, Card, Form, Input, Space, Typography } from 'antd';
import { useLogin } from '@refinedev/core';
import { ok } from '@market/sdk';
import { market } from '../session';
import { currentLocale, i18nProvider, t } from '../i18n';
import type { LoginInput } from '../auth-provider';
import { problemText } from '../components/ProblemAlert';

interface Captcha {
  captcha_id: string;
  image: string;
}

export function LoginPage() {
  const [params] = useSearchParams();
  const [captcha, setCaptcha] = useState<Captcha | null>(null);
  const [captchaError, setCaptchaError] = useState<string | null>(null);
  const { mutate: login, isPending, data } = useLogin<LoginInput>();
  const [form] = Form.useForm();

  const refresh = useCallback(() => {
    ok(market.api.GET('/api/admin/auth/captcha')).then(
      (c) => {
        setCaptcha(c);
        setCaptchaError(null);
        form.setFieldValue('captcha_code', '');
      },
      (e: unknown) => setCaptchaError(problemText(e)),
    );
  }, [form]);
  useEffect(refresh, [refresh]);
  useEffect(() => {
    if (data && !data.success) refresh();
  }, [data, refresh]);

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
        <Button type="link" onClick={() => i18nProvider.changeLocale(currentLocale() === 'en' ? 'zh-CN' : 'en')} style={{ marginTop: 8 }}>
          {t('app.language')}
        </Button>
      </Card>
    </main>
  );
}
