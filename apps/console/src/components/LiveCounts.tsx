import { useState } from 'react';
import { Link } from 'react-router';
import { Badge, Space, Tooltip } from 'antd';
import { useCustom, useSubscription, type LiveEvent } from '@refinedev/core';
import type { Schema, StreamState } from '@market/sdk';
import type { Capability } from '../access';
import { useAllowed } from '../use-allowed';
import { BACK_OFFICE_CHANNEL, STREAM_STATE } from '../live-provider';
import { t } from '../i18n';

/** How often the header asks the dashboard for the queue sizes while the back office's stream is down. */
export const POLL_MS = 15_000;

/** The kinds of the stream that change a badge's queue; alerts leave them as they are. */
const QUEUE_KINDS = ['listing.submitted', 'listing.approved', 'listing.rejected', 'listing.deleted', 'listing.marked_abnormal', 'dispute.opened', 'dispute.resolved'];

/**
 * The queue sizes, kept current by the back office's live stream (Refine's liveProvider): each
 * queue change it carries has the sizes read again from the dashboard (the stream says that a queue
 * changed, the dashboard how big it is, so the badges never drift from the server's figures). A read
 * asked for while one runs replaces it (react-query), so the figures shown are never older than the
 * last change. While the stream is down (it is retried) the dashboard is polled instead, only while
 * the tab is visible; it is read again whenever the stream (re)opens (ADR 0043).
 */
function useQueueCounts(enabled: boolean) {
  const [live, setLive] = useState<StreamState>('connecting');
  const { query } = useCustom<Schema<'Dashboard'>>({
    url: '/api/admin/dashboard',
    method: 'get',
    // a failed read keeps the last figures: the next change or poll reads again, the pages show errors themselves
    errorNotification: false,
    queryOptions: { enabled, refetchInterval: live === 'down' ? POLL_MS : false, refetchIntervalInBackground: false, retry: false },
  });
  useSubscription({
    channel: BACK_OFFICE_CHANNEL,
    types: [STREAM_STATE, ...QUEUE_KINDS],
    enabled,
    onLiveEvent: (event: LiveEvent) => {
      if (event.type === STREAM_STATE) {
        const state = (event.payload as { state: StreamState }).state;
        setLive(state);
        if (state !== 'open') return;
      }
      void query.refetch();
    },
  });
  const d = query.data?.data;
  return { counts: d ? { pending: d.listings_pending_review, disputes: d.disputes_open } : undefined, live };
}

function QueueBadge({ label, count, to, capability }: { label: string; count: number | null; to: string; capability: Capability }) {
  const allowed = useAllowed(capability);
  const name = `${label}: ${count ?? '—'}`;
  const badge = (
    <Badge count={count ?? 0} showZero overflowCount={999} color={count ? undefined : '#bfbfbf'}>
      <span style={{ paddingRight: 12 }}>{label}</span>
    </Badge>
  );
  return (
    <Tooltip title={name}>
      {allowed ? (
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
  const enabled = useAllowed('dashboard');
  const { counts, live } = useQueueCounts(enabled);
  if (!counts || !enabled) return null;
  return (
    <Space size="large" aria-live="polite" aria-label={t('live.queues')} role="group" data-live={live}>
      <QueueBadge label={t('live.reviews')} count={counts.pending} to="/listings" capability="listings" />
      <QueueBadge label={t('live.disputes')} count={counts.disputes} to="/disputes?status=open" capability="disputes" />
    </Space>
  );
}
