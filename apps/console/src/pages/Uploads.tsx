import { useState } from 'react';
import { Button, Table, Typography } from 'antd';
import { useShow } from '@refinedev/core';
import type { Schema } from '@market/sdk';
import { t } from '../i18n';
import { ListView } from '../components/ListView';
import { ProblemAlert } from '../components/ProblemAlert';
import { SideDrawer } from '../components/SideDrawer';
import { Status } from '../components/Status';
import { useCursorTable } from '../components/use-cursor-table';
import { when } from '../components/format';

type Upload = Schema<'OpenUploadRecordSummary'>;
type UploadDetail = Schema<'OpenUploadRecord'>;
const OUTCOMES: Upload['outcome'][] = ['accepted', 'partial', 'rejected', 'unmatched', 'refused'];

/** Every delivery of the open upload: the raw request (secrets redacted by the server) and each item's result. */
export default function Uploads() {
  const list = useCursorTable<Upload>('uploads', [
    { name: 'uploader_name', label: t('upload.uploader') },
    { name: 'outcome', label: t('upload.outcome'), options: OUTCOMES, labels: 'upload', width: 140 },
  ]);
  const [shown, setShown] = useState<string>();
  const { result: open, query } = useShow<UploadDetail>({ resource: 'uploads', id: shown, queryOptions: { enabled: !!shown }, errorNotification: false });
  const detailError = shown ? query.error : null;
  const show = (u: Upload) => setShown(u.id);
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
          { title: t('upload.outcome'), dataIndex: 'outcome', render: (o: string) => <Status kind="upload" value={o} /> },
          { title: 'items', dataIndex: 'item_count' },
          { title: t('menu.listings'), dataIndex: 'listing_count' },
        ]}
      />
      {shown && open?.id === shown ? (
        <SideDrawer title={`${t('menu.uploads')} ${when(open.received_at)}`} width={640} onClose={() => setShown(undefined)}>
          <Typography.Title level={5}>{t('upload.items')}</Typography.Title>
          <Table aria-label={t('upload.items')} rowKey={(_, i) => String(i)} pagination={false} dataSource={open.errors} columns={[{ title: '#', dataIndex: 'index' }, { title: t('common.detail'), render: (_, e) => JSON.stringify(e) }]} />
          <Typography.Title level={5}>{t('upload.raw')}</Typography.Title>
          <pre style={{ whiteSpace: 'pre-wrap', maxHeight: 400, overflow: 'auto' }}>{open.redacted_text ?? JSON.stringify(open.redacted_body, null, 2)}</pre>
          <Typography.Title level={5}>{t('upload.outcome')}</Typography.Title>
          <pre style={{ whiteSpace: 'pre-wrap' }}>{JSON.stringify(open.result, null, 2)}</pre>
        </SideDrawer>
      ) : null}
    </>
  );
}
