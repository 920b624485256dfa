import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { Badge, Space, Tooltip } from 'antd';
import { ok, openEventStream, type StreamState } from '@market/sdk';
import { market } from '../session';
import { can, type Capability } from '../access';
import { t } from '../i18n';

/** How often the header asks the dashboard for the queue sizes while the back office's stream is down. */
export const POLL_MS = 15_000;

/** The back office's stream: queue changes and alerts as they happen (`GET /api/admin/notifications/stream`). */
const STREAM = '/api/admin/notifications/stream';

/** The kinds of the stream that change a badge's queue; alerts leave them as they are. */
const QUEUE_KINDS = new Set(['listing.submitted', 'listing.approved', 'listing.rejected', 'listing.deleted', 'listing.marked_abnormal', 'dispute.opened', 'dispute.resolved']);

interface Counts {
  pending: number | null;
  disputes: number | null;
}

/**
 * The queue sizes, kept current by the back office's live stream: each queue change it carries
 * has the sizes read again from the dashboard (the stream says that a queue changed, the dashboard
 * how big it is, so the badges never drift from the server's figures). Reads never overlap: a
 * change during a read reads once more after it. While the stream is down (it is retried), the
 * dashboard is polled instead; it is read again whenever the stream (re)opens, for what changed
 * while it was away.
 */
function useQueueCounts(enabled: boolean): { counts?: Counts; live: StreamState } {
  const [counts, setCounts] = useState<Counts>();
  const [live, setLive] = useState<StreamState>('connecting');
  useEffect(() => {
    if (!enabled) return;
    let alive = true;
    let reading = false;
    let again = false;
    // a failed read keeps the last figures: the next change or poll reads again, and the pages show errors themselves
    const read = () => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      ok(market.api.GET('/api/admin/dashboard'))
        .then(
          (d) => alive && setCounts({ pending: d.listings_pending_review, disputes: d.disputes_open }),
          () => undefined,
        )
        .finally(() => {
          reading = false;
          if (again && alive) {
            again = false;
            read();
          }
        });
    };
    let poll: ReturnType<typeof setInterval> | undefined;
    const pollWhileVisible = () => document.visibilityState === 'visible' && read();
    const polling = (on: boolean) => {
      if (on && !poll) {
        poll = setInterval(pollWhileVisible, POLL_MS);
        document.addEventListener('visibilitychange', pollWhileVisible);
      } else if (!on && poll) {
        clearInterval(poll);
        poll = undefined;
        document.removeEventListener('visibilitychange', pollWhileVisible);
      }
    };
    const stream = openEventStream(market, STREAM, {
      onEvent: (event) => {
        if (event.event === 'notification' && QUEUE_KINDS.has((JSON.parse(event.data) as { kind: string }).kind)) read();
      },
      onState: (state) => {
        if (!alive) return;
        setLive(state);
        if (state === 'open') read();
        polling(state === 'down');
      },
    });
    read();
    return () => {
      alive = false;
      stream.close();
      polling(false);
    };
  }, [enabled]);
  return { counts, live };
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
  const enabled = can('dashboard');
  const { counts, live } = useQueueCounts(enabled);
  if (!counts || !enabled) return null;
  return (
    <Space size="large" aria-live="polite" aria-label={t('live.queues')} role="group" data-live={live}>
      <QueueBadge label={t('live.reviews')} count={counts.pending} to="/listings?pending=1" capability="listings" />
      <QueueBadge label={t('live.disputes')} count={counts.disputes} to="/disputes?status=open" capability="disputes" />
    </Space>
  );
}
