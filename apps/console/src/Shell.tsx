import { Suspense } from 'react';
import { Outlet } from 'react-router';
import { Button, Space, Spin, Typography } from 'antd';
import { ThemedLayout, ThemedSider, ThemedTitle } from '@refinedev/antd';
import { useGetIdentity, useLogout, useSetLocale } from '@refinedev/core';
import { currentLocale, t } from './i18n';
import { LiveCounts } from './components/LiveCounts';

function Header() {
  const { data: identity } = useGetIdentity<{ name: string }>();
  const { mutate: logout } = useLogout();
  const setLocale = useSetLocale();
  return (
    <Space style={{ display: 'flex', justifyContent: 'flex-end', padding: '12px 24px', background: '#fff' }}>
      <LiveCounts />
      <Typography.Text>{identity?.name}</Typography.Text>
      <Button aria-label={t('app.switchLanguage')} onClick={() => setLocale(currentLocale() === 'en' ? 'zh-CN' : 'en')}>
        {t('app.language')}
      </Button>
      <Button onClick={() => logout()}>{t('logout')}</Button>
    </Space>
  );
}

/** The signed-in frame: menu from the resources (filtered by the admin's permissions), header, page. */
export default function Shell() {
  return (
    <ThemedLayout
      Header={Header}
      Title={({ collapsed }) => <ThemedTitle collapsed={collapsed} text={t('app.title')} />}
      Sider={(props) => <ThemedSider {...props} render={({ items }) => <>{items}</>} />}
    >
      <Suspense fallback={<Spin aria-label={t('common.loading')} />}>
        <Outlet />
      </Suspense>
    </ThemedLayout>
  );
}
