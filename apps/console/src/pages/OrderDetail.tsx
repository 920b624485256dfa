import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { App, Button, Card, Descriptions, Image, Skeleton, Space, Table, Tag, Timeline, Typography } from 'antd';
import { ok, type Schema } from '@market/sdk';
import { loadSession, market } from '../session';
import { can } from '../access';
import { t } from '../i18n';
import { ProblemAlert } from '../components/ProblemAlert';
import { ReasonButton } from '../components/ReasonDialog';
import { ArbitrateButton } from '../components/ArbitrateButton';
import { when, yuan } from '../components/format';

const fetchOrder = (id: string) => ok(market.api.GET('/api/admin/orders/{id}', { params: { path: { id } } }));
type Detail = Awaited<ReturnType<typeof fetchOrder>>;
const TERMINAL = ['completed', 'cancelled', 'closed'];

/** The order's history as its timestamps tell it (the API keeps no separate event list). */
function timeline(o: Detail) {
  const steps: Array<[string | null | undefined, string]> = [
    [o.created_at, 'created'],
    [o.paid_at, 'paid'],
    [o.started_at, 'in use'],
    [o.ends_at, 'rental ends'],
    [o.dispute?.created_at, `dispute opened: ${o.dispute?.type} — ${o.dispute?.reason}`],
    [o.dispute?.resolved_at, `dispute resolved: ${o.dispute?.result} — ${o.dispute?.resolution_note}`],
    [o.updated_at, `now ${o.status}`],
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
  const [state, setState] = useState<{ items?: Schema<'HandoffRecord'>[]; error?: unknown }>({});
  const [requests, setRequests] = useState<Schema<'RevealRequest'>[]>([]);
  const approvalNeeded = order.dispute?.status !== 'open';
  const me = loadSession()?.admin.id;
  const path = { params: { path: { id: order.id } } };
  const load = () => {
    ok(market.api.GET('/api/admin/orders/{id}/handoff-records', path)).then((r) => setState({ items: r.items }), (error: unknown) => setState({ error }));
  };
  const loadRequests = () => {
    if (approvalNeeded && can('orders.reveal')) ok(market.api.GET('/api/admin/orders/{id}/handoff-records/reveal-requests', path)).then((r) => setRequests(r.items), () => setRequests([]));
  };
  useEffect(load, [order.id]);
  useEffect(loadRequests, [order.id, approvalNeeded]);
  const reveal = (reason: string, requestId?: string) =>
    ok(market.api.POST('/api/admin/orders/{id}/handoff-records/reveal', { ...path, body: { reason, ...(requestId ? { request_id: requestId } : {}) } })).then((r) => {
      setState({ items: r.items });
      loadRequests();
    });
  const requestReveal = (reason: string) => ok(market.api.POST('/api/admin/orders/{id}/handoff-records/reveal-requests', { ...path, body: { reason } })).then(loadRequests);
  const approve = (requestId: string) =>
    ok(market.api.POST('/api/admin/orders/{id}/handoff-records/reveal-requests/{requestId}/approve', { params: { path: { id: order.id, requestId } }, body: {} })).then(
      loadRequests,
      (error: unknown) => setState((current) => ({ ...current, error })),
    );
  const withheld = state.items?.some((r) => r.withheld) ?? false;
  const mayReveal = withheld && REVEALABLE.includes(order.status) && can('orders.reveal');
  return (
    <>
      {state.error ? <ProblemAlert error={state.error} onRetry={load} /> : null}
      {mayReveal ? (
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
      {mayReveal && approvalNeeded && requests.length > 0 ? (
        <Table<Schema<'RevealRequest'>>
          aria-label={t('order.revealRequests')}
          rowKey="id"
          size="small"
          pagination={false}
          style={{ marginBottom: 16 }}
          dataSource={requests}
          columns={[
            { title: t('common.created'), dataIndex: 'created_at', render: when },
            { title: t('order.revealReason'), dataIndex: 'reason' },
            { title: t('common.status'), dataIndex: 'status' },
            {
              key: 'action',
              render: (_, r) =>
                r.status === 'pending' && r.requested_by !== me ? (
                  <Button size="small" onClick={() => void approve(r.id)}>
                    {t('order.approveReveal')}
                  </Button>
                ) : r.status === 'approved' && r.requested_by === me ? (
                  <Button size="small" type="primary" onClick={() => void reveal(r.reason, r.id).catch((error: unknown) => setState((current) => ({ ...current, error })))}>
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
          { title: t('order.author'), dataIndex: 'author_role' },
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
  const { message } = App.useApp();
  const [state, setState] = useState<{ order?: Detail; error?: unknown }>({});
  const load = () => {
    fetchOrder(id).then((order) => setState({ order }), (error: unknown) => setState({ error }));
  };
  useEffect(load, [id]);
  if (state.error) return <ProblemAlert error={state.error} onRetry={load} />;
  const o = state.order;
  if (!o) return <Skeleton active aria-label={t('common.loading')} />;
  const moved = () => {
    void message.success(t('common.done'));
    load();
  };
  const movable = can('orders.move') && !TERMINAL.includes(o.status);
  return (
    <>
      <Link to="/orders">{t('common.back')}</Link>
      <Typography.Title level={3}>
        {o.listing_title} <Tag>{o.status}</Tag>
      </Typography.Title>
      <Space style={{ marginBottom: 16 }}>
        {movable ? (
          <ReasonButton danger label={t('order.close')} reasonLabel={t('common.reason')} onSubmit={(reason) => ok(market.api.POST('/api/admin/orders/{id}/close', { params: { path: { id } }, body: { reason } })).then(moved)} />
        ) : null}
        {movable && o.status !== 'abnormal' ? (
          <ReasonButton label={t('order.abnormal')} reasonLabel={t('common.reason')} onSubmit={(reason) => ok(market.api.POST('/api/admin/orders/{id}/mark-abnormal', { params: { path: { id } }, body: { reason } })).then(moved)} />
        ) : null}
        {o.dispute?.status === 'open' && can('disputes.arbitrate') ? <ArbitrateButton dispute={o.dispute} escrow={{ rent: o.rent, deposit: o.deposit, amount: o.amount }} onDone={moved} /> : null}
      </Space>
      <Descriptions bordered column={2} size="small">
        <Descriptions.Item label="ID">{o.id}</Descriptions.Item>
        <Descriptions.Item label={t('listing.title')}>
          <Link to={`/listings/${o.listing_id}`}>{o.listing_id}</Link>
        </Descriptions.Item>
        <Descriptions.Item label={t('order.renter')}>{o.renter_id}</Descriptions.Item>
        <Descriptions.Item label={t('listing.owner')}>{o.owner_id}</Descriptions.Item>
        <Descriptions.Item label={t('order.rent')}>{yuan(o.rent)}</Descriptions.Item>
        <Descriptions.Item label={t('listing.deposit')}>{yuan(o.deposit)}</Descriptions.Item>
        <Descriptions.Item label={t('order.amount')}>{yuan(o.amount)}</Descriptions.Item>
        <Descriptions.Item label={t('order.escrow')}>{o.escrow ? `${o.escrow.status} · ${yuan(o.escrow.held)}` : '—'}</Descriptions.Item>
        {o.checkout ? (
          <Descriptions.Item label={t('breakdown.ownerIncome')} span={2}>
            {t('breakdown.consumption')} {yuan(o.checkout.consumption)} · {t('breakdown.deduction')} {yuan(o.checkout.deposit_deduction)} · {t('breakdown.ownerIncome')}{' '}
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
      <Card title={t('menu.money')} style={{ marginTop: 16 }}>
        <Table aria-label={t('menu.money')} rowKey="id" pagination={false} dataSource={o.ledger_entries} columns={[{ title: t('money.biz'), dataIndex: 'biz_type' }, { title: t('money.user'), dataIndex: 'user_id' }, { title: t('order.amount'), dataIndex: 'amount', render: yuan }, { title: t('common.created'), dataIndex: 'created_at', render: when }]} />
      </Card>
    </>
  );
}
