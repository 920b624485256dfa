import type { User, UserAdminView, z } from '@market/contracts';
import { maskPhone } from '../domain/phone';
import type { UserRecord } from '../persistence/user-repository';

export function toUserView(user: UserRecord): z.infer<typeof User> {
  return {
    id: user.id,
    // publishers standing in for an admin have no phone
    phone_masked: user.phone ? maskPhone(user.phone) : '',
    nickname: user.nickname,
    avatar_url: user.avatar_url,
    realname_status: user.realname_status,
    frozen: user.frozen,
    created_at: user.created_at.toISOString(),
  };
}

export function toUserAdminView(user: UserRecord): z.infer<typeof UserAdminView> {
  return {
    ...toUserView(user),
    frozen_reason: user.frozen_reason,
    frozen_at: user.frozen_at?.toISOString() ?? null,
  };
}
