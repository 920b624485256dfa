import { useState } from 'react';
import { Button, Drawer, Table, Tag, Typography } from 'antd';
import { ok, type Schema } from '@market/sdk';
import { market } from '../session';
import { t } from '../i18n';
import { ListView } from '../components/ListView';
import { ProblemAlert } from '../components/ProblemAlert';
import { useCursorList } from '../components/use-cursor-list';
import { when } from '../components/format';

type Upload = Schema<'OpenUploadRecordSummary'>;
const fetchUpload = (id: string) => ok(market.api.GET('/api/admin/open-uploads/{id}', { params: { path: { id } } }));
const OUTCOMES: Upload['outcome'][] = ['accepted', 'partial', 'rejected', 'unmatched', 'refused'];

/** Every delivery of the open upload: the raw request (secrets redacted by the server) and each item's result. */
export default function Uploads() {
  const list = useCursorList<Upload>(
    [
      { name: 'uploader_name', label: t('upload.uploader') },
      { name: 'outcome', label: t('upload.outcome'), options: OUTCOMES, width: 140 },
    ],
    (q) =>
    ok(market.api.GET('/api/admin/open-uploads', { params: { query: { cursor: q.cursor, uploader_name: q.uploader_name, outcome: q.outcome as Upload['outcome'] | undefined } } })),
  );
  const [open, setOpen] = useState<Awaited<ReturnType<typeof fetchUpload>> | null>(null);
  const [detailError, setDetailError] = useState<unknown>(null);
  const show = (u: Upload) => fetchUpload(u.id).then(setOpen, setDetailError);
  return (
    <>
      <ListView<Upload>
        title={t('menu.uploads')}
        list={list}
        rowKey="id"
        extra={detailError ? <ProblemAlert error={detailError} /> : null}
        columns={[
          { title: t('upload.received'), dataIndex: 'received_at', render: (at: string, u) => <Button type="link" onClick={() => show(u)}>{when(at)}</Button> },
          { title: t('upload.uploader'), dataIndex: 'uploader_name' },
          { title: t('upload.outcome'), dataIndex: 'outcome', render: (o: string) => <Tag>{o}</Tag> },
          { title: 'items', dataIndex: 'item_count' },
          { title: t('menu.listings'), dataIndex: 'listing_count' },
        ]}
      />
      {open ? (
        <Drawer open title={`${t('menu.uploads')} ${when(open.received_at)}`} width={640} onClose={() => setOpen(null)}>
          <Typography.Title level={5}>{t('upload.items')}</Typography.Title>
          <Table aria-label={t('upload.items')} rowKey={(_, i) => String(i)} pagination={false} dataSource={open.errors} columns={[{ title: '#', dataIndex: 'index' }, { title: t('common.detail'), render: (_, e) => JSON.stringify(e) }]} />
          <Typography.Title level={5}>{t('upload.raw')}</Typography.Title>
          <pre style={{ whiteSpace: 'pre-wrap', maxHeight: 400, overflow: 'auto' }}>{open.redacted_text ?? JSON.stringify(open.redacted_body, null, 2)}</pre>
          <Typography.Title level={5}>{t('upload.outcome')}</Typography.Title>
          <pre style={{ whiteSpace: 'pre-wrap' }}>{JSON.stringify(open.result, null, 2)}</pre>
        </Drawer>
      ) : null}
    </>
  );
}
