import { Link } from 'react-router';
import { useList } from '@refinedev/core';
import type { Schema } from '@market/sdk';
import { useAllowed } from '../use-allowed';
import { t } from '../i18n';

type User = Schema<'UserAdminView'>;

/** Most ids one read of `GET /api/admin/users?ids=` takes. */
const MAX_IDS = 100;

/**
 * The people a screen names by id (owners, renters, ledger rows), read in one request
 * (`GET /api/admin/users?ids=…`) when the admin may read users; `who(id)` is then the user.
 */
export function usePeople(ids: ReadonlyArray<string | null | undefined>) {
  const allowed = useAllowed('users');
  const unique = [...new Set(ids.filter((id): id is string => !!id))].sort().slice(0, MAX_IDS);
  const { result } = useList<User>({
    resource: 'users',
    filters: [{ field: 'ids', operator: 'eq', value: unique.join(',') }],
    pagination: { pageSize: MAX_IDS, mode: 'server' },
    queryOptions: { enabled: allowed && unique.length > 0 },
    errorNotification: false,
  });
  const byId = new Map(result.data.map((u) => [u.id, u]));
  return { who: (id: string | null | undefined) => (id ? byId.get(id) : undefined), linked: allowed };
}

/**
 * A person as an operator knows them: nickname and masked phone, linked to the user when the admin
 * may read users; the id (in full on hover) when the user is not known to this admin.
 */
export function Person({ id, people }: { id: string | null | undefined; people: ReturnType<typeof usePeople> }) {
  if (!id) return <>—</>;
  const user = people.who(id);
  if (!user) return <span title={id}>{id}</span>;
  const text = t('common.person', { nickname: user.nickname, phone: user.phone_masked || '—' });
  return people.linked ? (
    <Link to={`/users?ids=${id}`} title={id}>
      {text}
    </Link>
  ) : (
    <span title={id}>{text}</span>
  );
}
