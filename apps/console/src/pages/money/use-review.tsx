import type { ReactNode } from 'react';
import { Button, Space, type TableColumnType, type TableColumnsType } from 'antd';
import { t } from '../../i18n';
import { useAllowed } from '../../use-allowed';
import { Person, usePeople } from '../../components/people';
import { ReasonButton } from '../../components/ReasonDialog';
import type { CursorTable } from '../../components/use-cursor-table';
import { useMove } from '../../components/use-move';
import { when } from '../../components/format';

/** The requests finance reviews, by their admin routes (`/api/admin/{of}/{id}/approve`, `…/reject`) and capabilities. */
type Reviewed = 'refunds' | 'withdrawals';
type Request = { id: string; user_id: string; reason?: string | null; created_at: string };

/**
 * Approve, or reject with a reason. The list is read again after either; an approval the server
 * refuses is announced (it has no dialog to show it in) and reloads too, since the request may have
 * moved on meanwhile.
 */
function ReviewButtons({ of, id, approve, reject, onDone }: { of: Reviewed; id: string; approve: string; reject: string; onDone: () => void }) {
  const move = useMove();
  return (
    <Space>
      <Button type="primary" onClick={() => void move(`/api/admin/${of}/{id}/approve`, { id }, {}, { notifyRefusal: true }).then(onDone, onDone)}>
        {approve}
      </Button>
      <ReasonButton danger label={reject} reasonLabel={t('money.rejectReason')} onSubmit={(reason) => move(`/api/admin/${of}/{id}/reject`, { id }, { reason }).then(onDone)} />
    </Space>
  );
}

/**
 * The columns a list of requests finance reviews (refunds, withdrawals) shares: `person`, who asked
 * (by nickname and phone), and `review`, the last ones: the reason, when, and for an admin allowed
 * to decide the approve and reject buttons while `pending` says the request waits for them, else
 * what `otherwise` offers.
 */
export function useReview<T extends Request>(list: CursorTable<T>, of: Reviewed) {
  const people = usePeople(list.items.map((r) => r.user_id));
  const manage = useAllowed(`${of}.manage`);
  const person: TableColumnType<T> = { title: t('money.person'), dataIndex: 'user_id', render: (id: string) => <Person id={id} people={people} /> };
  const review = ({ pending, approve, reject, otherwise = () => null }: { pending: (row: T) => boolean; approve: string; reject: string; otherwise?: (row: T) => ReactNode }): TableColumnsType<T> => [
    { title: t('common.reason'), dataIndex: 'reason' },
    { title: t('common.created'), dataIndex: 'created_at', render: when },
    {
      title: t('money.review'),
      key: 'actions',
      render: (_, row) => (!manage ? null : pending(row) ? <ReviewButtons of={of} id={row.id} approve={approve} reject={reject} onDone={list.reload} /> : otherwise(row)),
    },
  ];
  return { person, review };
}
