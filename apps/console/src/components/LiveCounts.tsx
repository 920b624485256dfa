import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { Badge, Space, Tooltip } from 'antd';
import { ok } from '@market/sdk';
import { market } from '../session';
import { can, type Capability } from '../access';
import { t } from '../i18n';

/**
 * How often the header asks the dashboard route for the queue sizes. The back office has no live
 * stream of its own yet (users have one, `GET /api/notifications/stream`); until it does, the
 * dashboard's counts, polled while the tab is visible and on return to it, keep the badges current.
 */
export const POLL_MS = 15_000;

interface Counts {
  pending: number | null;
  disputes: number | null;
}

function useQueueCounts(): Counts | undefined {
  const [counts, setCounts] = useState<Counts>();
  useEffect(() => {
    let alive = true;
    // a failed poll keeps the last figures: the next one tries again, and the pages show errors themselves
    const poll = () => {
      if (document.visibilityState !== 'visible') return;
      ok(market.api.GET('/api/admin/dashboard')).then(
        (d) => alive && setCounts({ pending: d.listings_pending_review, disputes: d.disputes_open }),
        () => undefined,
      );
    };
    poll();
    const timer = setInterval(poll, POLL_MS);
    document.addEventListener('visibilitychange', poll);
    return () => {
      alive = false;
      clearInterval(timer);
      document.removeEventListener('visibilitychange', poll);
    };
  }, []);
  return counts;
}

function QueueBadge({ label, count, to, capability }: { label: string; count: number | null; to: string; capability: Capability }) {
  const name = `${label}: ${count ?? '—'}`;
  const badge = (
    <Badge count={count ?? 0} showZero overflowCount={999} color={count ? undefined : '#bfbfbf'}>
      <span style={{ paddingRight: 12 }}>{label}</span>
    </Badge>
  );
  return (
    <Tooltip title={name}>
      {can(capability) ? (
        <Link to={to} aria-label={name}>
          {badge}
        </Link>
      ) : (
        <span role="status" aria-label={name}>
          {badge}
        </span>
      )}
    </Tooltip>
  );
}

/** The header's badges: listings waiting for review and open disputes, kept current while the console is open. */
export function LiveCounts() {
  const counts = useQueueCounts();
  if (!counts || !can('dashboard')) return null;
  return (
    <Space size="large" aria-live="polite" aria-label={t('live.queues')} role="group">
      <QueueBadge label={t('live.reviews')} count={counts.pending} to="/listings?pending=1" capability="listings" />
      <QueueBadge label={t('live.disputes')} count={counts.disputes} to="/disputes?status=open" capability="disputes" />
    </Space>
  );
}
