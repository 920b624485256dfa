import { Suspense } from 'react';
import { Link, Outlet } from 'react-router';
import { Button, Space, Spin, Typography } from 'antd';
import { ThemedLayout } from '@refinedev/antd';
import { useGetIdentity, useLogout, useSetLocale } from '@refinedev/core';
import { currentLocale, t } from './i18n';
import { ConsoleSider } from './components/ConsoleSider';
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

/**
 * The console's name, a link to the dashboard. Collapsed, the sider has room for one character
 * only: the link keeps the full name for assistive technology (Refine's ThemedTitle shows an
 * unnamed icon there).
 */
function ConsoleTitle({ collapsed }: { collapsed: boolean }) {
  const title = t('app.title');
  return (
    <Link to="/" aria-label={collapsed ? title : undefined} style={{ fontSize: 16, fontWeight: 700, color: 'inherit', whiteSpace: 'nowrap' }}>
      {collapsed ? <span aria-hidden="true">{title.slice(0, 1)}</span> : title}
    </Link>
  );
}

/** The signed-in frame: menu from the resources (filtered by the admin's permissions), header, page. */
export default function Shell() {
  return (
    <ThemedLayout
      Header={Header}
      Title={ConsoleTitle}
      Sider={ConsoleSider}
    >
      <Suspense fallback={<Spin aria-label={t('common.loading')} />}>
        <Outlet />
      </Suspense>
    </ThemedLayout>
  );
}
