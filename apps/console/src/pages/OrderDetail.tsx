import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { Button, Card, Descriptions, Image, Skeleton, Space, Table, Tag, Timeline, Typography } from 'antd';
import { useCustom, useGetIdentity, useShow } from '@refinedev/core';
import type { Schema } from '@market/sdk';
import { label, t } from '../i18n';
import { useAllowed } from '../use-allowed';
import { ProblemAlert } from '../components/ProblemAlert';
import { ReasonButton } from '../components/ReasonDialog';
import { ArbitrateButton } from '../components/ArbitrateButton';
import { OrderRatings } from '../components/OrderRatings';
import { Person, usePeople } from '../components/people';
import { Status } from '../components/Status';
import { useMove } from '../components/use-move';
import { when, yuan } from '../components/format';

type Detail = Schema<'AdminOrderDetail'>;
const TERMINAL = ['completed', 'cancelled', 'closed'];

/** The order's history as its timestamps tell it (the API keeps no separate event list). */
function timeline(o: Detail) {
  const steps: Array<[string | null | undefined, string]> = [
    [o.created_at, t('timeline.created')],
    [o.paid_at, t('timeline.paid')],
    [o.started_at, t('timeline.inUse')],
    [o.ends_at, t('timeline.ends')],
    [o.dispute?.created_at, `${t('timeline.disputeOpened')}: ${label('disputeType', o.dispute?.type)} — ${o.dispute?.reason}`],
    [o.dispute?.resolved_at, `${t('timeline.disputeResolved')}: ${label('ruling', o.dispute?.result)} — ${o.dispute?.resolution_note}`],
    // each renewal at the time it was charged, with the hours, the rent and the end it moved
    ...o.renewals.map((r): [string, string] => [r.renewed_at, `${t('timeline.renewed')}: +${r.hours} h, ${yuan(r.rent)} → ${when(r.ends_at)}`]),
    [o.updated_at, `${t('timeline.now')} ${label('order', o.status)}`],
  ];
  return steps.filter(([at]) => at).sort((a, b) => String(a[0]).localeCompare(String(b[0]))).map(([at, label]) => ({ children: `${when(at)} · ${label}` }));
}

/** Only a dispute or an abnormal order may have its handoff content revealed (the server's rule too). */
const REVEALABLE = ['disputed', 'abnormal'];

/**
 * The order's handoff records as the back office sees them: that and when each was written, its
 * content withheld until an admin allowed to reveals it with a reason (audited by the server).
 * Without an open dispute a reveal needs another admin's approval (ADR 0056): the dialog then sends
 * a reveal request, which a second admin approves here and the requester then uses, once.
 */
function HandoffRecords({ order }: { order: Detail }) {
  const mayReveal = useAllowed('orders.reveal');
  const approvalNeeded = order.dispute?.status !== 'open';
  const { data: me } = useGetIdentity<{ id: string }>();
  const path = { id: order.id };
  const records = useCustom<{ items: Schema<'HandoffRecord'>[] }>({
    url: '/api/admin/orders/{id}/handoff-records',
    method: 'get',
    meta: { path },
    errorNotification: false,
  });
  const requests = useCustom<{ items: Schema<'RevealRequest'>[] }>({
    url: '/api/admin/orders/{id}/handoff-records/reveal-requests',
    method: 'get',
    meta: { path },
    errorNotification: false,
    queryOptions: { enabled: mayReveal && approvalNeeded },
  });
  const [revealed, setRevealed] = useState<Schema<'HandoffRecord'>[]>();
  const [refused, setRefused] = useState<unknown>();
  const move = useMove();
  const reloadRequests = () => void requests.query.refetch();
  const reveal = (reason: string, requestId?: string) =>
    move<{ items: Schema<'HandoffRecord'>[] }>('/api/admin/orders/{id}/handoff-records/reveal', path, { reason, ...(requestId ? { request_id: requestId } : {}) }).then((r) => {
      setRevealed(r.items);
      if (requestId) reloadRequests();
    });
  const requestReveal = (reason: string) => move('/api/admin/orders/{id}/handoff-records/reveal-requests', path, { reason }).then(reloadRequests);
  const approve = (requestId: string) => move('/api/admin/orders/{id}/handoff-records/reveal-requests/{requestId}/approve', { ...path, requestId }).then(reloadRequests, setRefused);
  const revealApproved = (r: Schema<'RevealRequest'>) => reveal(r.reason, r.id).catch(setRefused);
  const state = { items: revealed ?? records.query.data?.data.items, error: records.query.error ?? refused };
  const withheld = state.items?.some((r) => r.withheld) ?? false;
  const revealable = mayReveal && withheld && REVEALABLE.includes(order.status);
  const pending = requests.query.data?.data.items ?? [];
  return (
    <>
      {state.error ? <ProblemAlert error={state.error} onRetry={() => void records.query.refetch().then(() => setRefused(undefined))} /> : null}
      {revealable ? (
        <Space style={{ marginBottom: 16 }} wrap>
          {approvalNeeded ? (
            <>
              <Tag color="orange">{t('order.approvalNeeded')}</Tag>
              <ReasonButton label={t('order.revealRequest')} reasonLabel={t('order.revealReason')} onSubmit={requestReveal} />
            </>
          ) : (
            <ReasonButton label={t('order.reveal')} reasonLabel={t('order.revealReason')} onSubmit={(reason) => reveal(reason)} />
          )}
        </Space>
      ) : null}
      {revealable && approvalNeeded && pending.length > 0 ? (
        <Table<Schema<'RevealRequest'>>
          aria-label={t('order.revealRequests')}
          rowKey="id"
          size="small"
          pagination={false}
          style={{ marginBottom: 16 }}
          dataSource={pending}
          columns={[
            { title: t('common.created'), dataIndex: 'created_at', render: when },
            { title: t('order.revealReason'), dataIndex: 'reason' },
            { title: t('common.status'), dataIndex: 'status', render: (s: string) => <Status kind="revealRequest" value={s} color={s === 'pending' ? 'orange' : undefined} /> },
            {
              key: 'action',
              render: (_, r) =>
                // the server refuses an approval by the requester (403 REVEAL_APPROVER_INVOLVED) and a use by anyone else
                r.status === 'pending' && r.requested_by !== me?.id ? (
                  <Button size="small" onClick={() => void approve(r.id)}>
                    {t('order.approveReveal')}
                  </Button>
                ) : r.status === 'approved' && r.requested_by === me?.id ? (
                  <Button size="small" type="primary" onClick={() => void revealApproved(r)}>
                    {t('order.revealApproved')}
                  </Button>
                ) : null,
            },
          ]}
        />
      ) : null}
      <Table<Schema<'HandoffRecord'>>
        aria-label={t('order.handoff')}
        rowKey="id"
        pagination={false}
        loading={!state.items && !state.error}
        dataSource={state.items ?? []}
        columns={[
          { title: t('common.created'), dataIndex: 'created_at', render: when },
          { title: t('order.author'), dataIndex: 'author_role', render: (r: string) => label('party', r) },
          {
            title: t('common.detail'),
            key: 'content',
            render: (_, r) =>
              r.withheld ? (
                <Tag>{t('order.withheld')}</Tag>
              ) : (
                <>
                  {r.content}
                  {r.attachment_urls.map((url, i) => (
                    <Image key={url} src={url} width={96} alt={`${t('order.handoff')} ${i + 1}`} />
                  ))}
                </>
              ),
          },
        ]}
      />
    </>
  );
}

export default function OrderDetail() {
  const { id = '' } = useParams();
  const { result: o, query } = useShow<Detail>({ resource: 'orders', id, errorNotification: false });
  const move = useMove();
  const mayMove = useAllowed('orders.move');
  const mayArbitrate = useAllowed('disputes.arbitrate');
  const people = usePeople([o?.renter_id, o?.owner_id, ...(o?.ledger_entries.map((e) => e.user_id) ?? [])]);
  if (query.error) return <ProblemAlert error={query.error} onRetry={() => void query.refetch()} />;
  if (!o) return <Skeleton active aria-label={t('common.loading')} />;
  const moved = () => void query.refetch();
  const movable = mayMove && !TERMINAL.includes(o.status);
  return (
    <>
      <Link to="/orders">{t('common.back')}</Link>
      <Typography.Title level={3}>
        {o.listing_title} <Status kind="order" value={o.status} />
      </Typography.Title>
      <Space style={{ marginBottom: 16 }}>
        {movable ? (
          <ReasonButton danger label={t('order.close')} reasonLabel={t('common.reason')} onSubmit={(reason) => move('/api/admin/orders/{id}/close', { id }, { reason }).then(moved)} />
        ) : null}
        {movable && o.status !== 'abnormal' ? (
          <ReasonButton label={t('order.abnormal')} reasonLabel={t('common.reason')} onSubmit={(reason) => move('/api/admin/orders/{id}/mark-abnormal', { id }, { reason }).then(moved)} />
        ) : null}
        {o.dispute?.status === 'open' && mayArbitrate ? <ArbitrateButton dispute={o.dispute} escrow={{ rent: o.rent, deposit: o.deposit, amount: o.amount }} onDone={moved} /> : null}
      </Space>
      <Descriptions bordered column={2} size="small">
        <Descriptions.Item label="ID">{o.id}</Descriptions.Item>
        <Descriptions.Item label={t('listing.title')}>
          <Link to={`/listings/${o.listing_id}`}>{o.listing_id}</Link>
        </Descriptions.Item>
        <Descriptions.Item label={t('order.renter')}>
          <Person id={o.renter_id} people={people} />
        </Descriptions.Item>
        <Descriptions.Item label={t('listing.owner')}>
          <Person id={o.owner_id} people={people} />
        </Descriptions.Item>
        <Descriptions.Item label={t('order.rent')}>{yuan(o.rent)}</Descriptions.Item>
        <Descriptions.Item label={t('listing.deposit')}>{yuan(o.deposit)}</Descriptions.Item>
        <Descriptions.Item label={t('order.amount')}>{yuan(o.amount)}</Descriptions.Item>
        <Descriptions.Item label={t('order.escrow')}>{o.escrow ? `${label('escrow', o.escrow.status)} · ${yuan(o.escrow.held)}` : '—'}</Descriptions.Item>
        {o.checkout ? (
          <Descriptions.Item label={t('breakdown.ownerIncome')} span={2}>
            {t('breakdown.consumption')} {yuan(o.checkout.consumption)} ·{' '}
            {o.checkout.overtime_fee > 0 ? `${t('breakdown.overtime')} ${t('unit.minutes', { count: o.checkout.overtime_minutes })} ${yuan(o.checkout.overtime_fee)} · ` : null}
            {t('breakdown.deduction')} {yuan(o.checkout.deposit_deduction)} · {t('breakdown.ownerIncome')}{' '}
            {yuan(o.checkout.owner_income)} · {t('breakdown.fee')} {yuan(o.checkout.platform_fee)} · {t('breakdown.refund')} {yuan(o.checkout.refund)}
          </Descriptions.Item>
        ) : null}
      </Descriptions>
      <Card title={t('order.timeline')} style={{ marginTop: 16 }}>
        <Timeline items={timeline(o)} />
      </Card>
      {o.dispute?.evidence_urls.length ? (
        <Card title={t('dispute.evidence')} style={{ marginTop: 16 }}>
          {o.dispute.evidence_urls.map((url, i) => (
            <Image key={url} src={url} width={160} alt={`${t('dispute.evidence')} ${i + 1}`} />
          ))}
        </Card>
      ) : null}
      <Card title={t('order.handoff')} style={{ marginTop: 16 }}>
        <HandoffRecords order={o} />
      </Card>
      {o.status === 'completed' ? (
        <Card title={t('rating.title')} style={{ marginTop: 16 }}>
          <OrderRatings orderId={o.id} />
        </Card>
      ) : null}
      <Card title={t('menu.money')} style={{ marginTop: 16 }}>
        <Table aria-label={t('menu.money')} rowKey="id" pagination={false} dataSource={o.ledger_entries} columns={[{ title: t('money.biz'), dataIndex: 'biz_type', render: (b: string) => <Status kind="biz" value={b} /> }, { title: t('money.person'), dataIndex: 'user_id', render: (id: string) => <Person id={id} people={people} /> }, { title: t('order.amount'), dataIndex: 'amount', render: yuan }, { title: t('common.created'), dataIndex: 'created_at', render: when }]} />
      </Card>
    </>
  );
}
