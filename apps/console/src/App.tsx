import { lazy, Suspense } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { App as AntdApp, ConfigProvider, Spin } from 'antd';
// the ES modules: the CommonJS entry (antd/locale/…) arrives wrapped in the bundle and antd fell back to English
import zhCN from 'antd/es/locale/zh_CN';
import enUS from 'antd/es/locale/en_US';
import { useTranslation } from 'react-i18next';
import { Authenticated, Refine } from '@refinedev/core';
import { useNotificationProvider } from '@refinedev/antd';
import routerProvider from '@refinedev/react-router';
import { accessControlProvider, authProvider } from './auth-provider';
import { createDataProvider } from './data/data-provider';
import { createLiveProvider } from './live-provider';
import { market } from './session';
import { i18nProvider, t } from './i18n';
import { LoginPage } from './pages/Login';

const Shell = lazy(() => import('./Shell'));
const Dashboard = lazy(() => import('./pages/Dashboard'));
const Listings = lazy(() => import('./pages/Listings'));
const ListingDetail = lazy(() => import('./pages/ListingDetail'));
const Users = lazy(() => import('./pages/Users'));
const Orders = lazy(() => import('./pages/Orders'));
const OrderDetail = lazy(() => import('./pages/OrderDetail'));
const Disputes = lazy(() => import('./pages/Disputes'));
const Ledger = lazy(() => import('./pages/money/Ledger'));
const Withdrawals = lazy(() => import('./pages/money/Withdrawals'));
const MoneyCheck = lazy(() => import('./pages/money/MoneyCheck'));
const Refunds = lazy(() => import('./pages/money/Refunds'));
const Reconciliations = lazy(() => import('./pages/money/Reconciliations'));
const Configs = lazy(() => import('./pages/Configs'));
const Audit = lazy(() => import('./pages/Audit'));
const Admins = lazy(() => import('./pages/Admins'));
const Uploads = lazy(() => import('./pages/Uploads'));

const dataProvider = createDataProvider(market);
const liveProvider = createLiveProvider(market);

/** The menu's resources, labelled in the current language. */
const resources = () => [
  { name: 'dashboard', list: '/', meta: { label: t('menu.dashboard') } },
  { name: 'listings', list: '/listings', show: '/listings/:id', meta: { label: t('menu.listings') } },
  { name: 'users', list: '/users', show: '/users/:id', meta: { label: t('menu.users') } },
  { name: 'orders', list: '/orders', show: '/orders/:id', meta: { label: t('menu.orders') } },
  { name: 'disputes', list: '/disputes', meta: { label: t('menu.disputes') } },
  { name: 'money', list: '/money', meta: { label: t('menu.money') } },
  { name: 'configs', list: '/configs', meta: { label: t('menu.configs') } },
  { name: 'audit', list: '/audit', meta: { label: t('menu.audit') } },
  { name: 'admins', list: '/admins', meta: { label: t('menu.admins') } },
  { name: 'uploads', list: '/uploads', meta: { label: t('menu.uploads') } },
];

export function App() {
  // re-rendered on a language switch: Ant Design's locale (date pickers, pagination) follows i18next's
  const { i18n } = useTranslation();
  const en = i18n.language === 'en';
  const loading = <Spin aria-label={t('common.loading')} style={{ display: 'block', margin: 48 }} />;
  return (
    <BrowserRouter basename="/admin">
      <ConfigProvider locale={en ? enUS : zhCN} theme={{ token: { colorPrimary: '#1677ff' } }}>
        <AntdApp>
          <Refine
            // a new language draws every screen anew in it (menu labels, columns, filters), without a page load
            key={i18n.language}
            routerProvider={routerProvider}
            dataProvider={dataProvider}
            liveProvider={liveProvider}
            notificationProvider={useNotificationProvider}
            authProvider={authProvider}
            accessControlProvider={accessControlProvider}
            i18nProvider={i18nProvider}
            resources={resources()}
            options={{ disableTelemetry: true, liveMode: 'off' }}
          >
            <Suspense fallback={loading}>
              <Routes>
                <Route path="/login" element={<LoginPage />} />
                <Route
                  element={
                    <Authenticated key="console" fallback={<Navigate to="/login" replace />} loading={loading}>
                      <Shell />
                    </Authenticated>
                  }
                >
                  <Route index element={<Dashboard />} />
                  <Route path="listings" element={<Listings />} />
                  <Route path="listings/:id" element={<ListingDetail />} />
                  <Route path="users" element={<Users />} />
                  <Route path="orders" element={<Orders />} />
                  <Route path="orders/:id" element={<OrderDetail />} />
                  <Route path="disputes" element={<Disputes />} />
                  <Route path="money" element={<Ledger />} />
                  <Route path="money/withdrawals" element={<Withdrawals />} />
                  <Route path="money/check" element={<MoneyCheck />} />
                  <Route path="money/refunds" element={<Refunds />} />
                  <Route path="money/reconciliations" element={<Reconciliations />} />
                  <Route path="configs" element={<Configs />} />
                  <Route path="audit" element={<Audit />} />
                  <Route path="admins" element={<Admins />} />
                  <Route path="uploads" element={<Uploads />} />
                  <Route path="*" element={<Navigate to="/" replace />} />
                </Route>
              </Routes>
            </Suspense>
          </Refine>
        </AntdApp>
      </ConfigProvider>
    </BrowserRouter>
  );
}
