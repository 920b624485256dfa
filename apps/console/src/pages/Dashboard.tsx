import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Alert, Card, Col, Progress, Row, Skeleton, Statistic, Typography } from 'antd';
import { useCustom } from '@refinedev/core';
import type { Schema } from '@market/sdk';
import { useAllowed } from '../use-allowed';
import { label, t, type Enum } from '../i18n';
import { ProblemAlert } from '../components/ProblemAlert';
import { yuan } from '../components/format';
import { DailyChart } from '../components/DailyChart';

/** A link to a page the admin may open; plain content otherwise. */
function LinkIf({ to, allowed, children }: { to: string; allowed: boolean; children: ReactNode }) {
  return allowed ? <Link to={to}>{children}</Link> : <>{children}</>;
}

/** Counts by status as horizontal bars, largest first. */
function StatusBars({ title, counts, kind }: { title: string; counts: Record<string, number> | null; kind: Enum }) {
  const entries = Object.entries(counts ?? {}).sort((a, b) => b[1] - a[1]);
  const max = Math.max(1, ...entries.map(([, n]) => n));
  return (
    <Card title={title} role="figure" aria-label={title}>
      {entries.length === 0 ? <Typography.Text type="secondary">{t('common.empty')}</Typography.Text> : null}
      {entries.map(([status, n]) => (
        <div key={status}>
          <Typography.Text>
            {label(kind, status)}: {n}
          </Typography.Text>
          <Progress percent={(n / max) * 100} showInfo={false} aria-label={`${label(kind, status)} ${n}`} />
        </div>
      ))}
    </Card>
  );
}

export default function Dashboard() {
  const { query } = useCustom<Schema<'Dashboard'>>({ url: '/api/admin/dashboard', method: 'get', errorNotification: false });
  const listings = useAllowed('listings');
  const disputes = useAllowed('disputes');
  if (query.error) return <ProblemAlert error={query.error} onRetry={() => void query.refetch()} />;
  const d = query.data?.data;
  if (!d) return <Skeleton active aria-label={t('common.loading')} />;
  // the two queues, each linked to its page for an admin who may open it
  const queues: Array<[string, number | null, string, boolean]> = [
    [t('dashboard.pending'), d.listings_pending_review, '/listings', listings],
    [t('dashboard.disputes'), d.disputes_open, '/disputes?status=open', disputes],
  ];
  const figures: Array<[string, string | number | null]> = [
    [t('dashboard.users'), d.users_total],
    [t('dashboard.usersToday'), d.users_today],
    [t('dashboard.frozen'), d.users_frozen],
    [t('dashboard.ordersToday'), d.orders_today],
    [t('dashboard.gmvToday'), d.gmv_today === null ? null : yuan(d.gmv_today)],
    [t('dashboard.gmv7'), d.gmv_last_7_days === null ? null : yuan(d.gmv_last_7_days)],
    [t('dashboard.feesToday'), d.platform_revenue_today === null ? null : yuan(d.platform_revenue_today)],
    [t('dashboard.fees7'), d.platform_revenue_last_7_days === null ? null : yuan(d.platform_revenue_last_7_days)],
    [t('dashboard.rechargesToday'), d.recharges_today_amount === null ? null : `${d.recharges_today_count} / ${yuan(d.recharges_today_amount)}`],
  ];
  type Day = Schema<'DashboardDay'>;
  const charts: Array<[string, (day: Day) => number | null, ((n: number) => string) | undefined]> = [
    [t('dashboard.chartOrders'), (day) => day.orders, undefined],
    [t('dashboard.chartGmv'), (day) => day.gmv, yuan],
    [t('dashboard.chartUsers'), (day) => day.new_users, undefined],
    [t('dashboard.chartRecharges'), (day) => day.recharges_amount, yuan],
    [t('dashboard.chartFees'), (day) => day.platform_fees, yuan],
  ];
  return (
    <>
      <Typography.Title level={3}>{t('menu.dashboard')}</Typography.Title>
      {d.unavailable.length ? <Alert type="warning" message={t('dashboard.unavailable') + d.unavailable.join(', ')} style={{ marginBottom: 16 }} /> : null}
      <Row gutter={[16, 16]}>
        {queues.map(([title, value, to, allowed]) => (
          <Col xs={24} md={12} key={to}>
            <Card>
              <LinkIf to={to} allowed={allowed}>
                <Statistic title={title} value={value ?? '—'} />
              </LinkIf>
            </Card>
          </Col>
        ))}
        {figures.map(([title, value]) => (
          <Col xs={12} md={8} key={title}>
            <Card>
              <Statistic title={title} value={value ?? '—'} />
            </Card>
          </Col>
        ))}
        {charts.map(([title, pick, format]) => (
          <Col xs={24} md={12} xl={8} key={title}>
            <DailyChart title={title} days={d.last_30_days.map((day) => ({ date: day.date, value: pick(day) }))} format={format} />
          </Col>
        ))}
        <Col xs={24} md={12}>
          <StatusBars title={t('dashboard.ordersByStatus')} counts={d.orders_by_status} kind="order" />
        </Col>
        <Col xs={24} md={12}>
          <StatusBars title={t('dashboard.listingsByStatus')} counts={d.listings_by_status} kind="listing" />
        </Col>
      </Row>
    </>
  );
}
