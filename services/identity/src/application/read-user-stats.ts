import { countPhoneUsers, countPhoneUsersByDay } from '../persistence/user-repository';
import type { IdentityDeps } from './deps';

export async function readUserStats(deps: IdentityDeps) {
  const [counts, daily] = await Promise.all([countPhoneUsers(deps.db), countPhoneUsersByDay(deps.db)]);
  return { users_total: counts.total, users_today: counts.today, users_frozen: counts.frozen, daily };
}
