import { payeeCheck, systemConfigValues, SYSTEM_CONFIG_DEFAULTS } from '@market/contracts';
import { type InternalClient } from '@market/shared/http';
import type { PayeeDirectory, WithdrawalSettings } from '../application/ports';

export function payeeDirectory(internal: InternalClient): PayeeDirectory {
  return {
    async check(userId, name) {
      const found = await internal.find(payeeCheck, { params: { id: userId }, body: { name } });
      return found ? { frozen: found.frozen, realnameStatus: found.realname_status, nameMatches: found.name_matches } : null;
    },
  };
}

/** The limits as admin holds them now; a key admin does not answer falls back to its documented default. */
export function withdrawalSettings(internal: InternalClient): WithdrawalSettings {
  return {
    async limits() {
      const { items } = await internal.call(systemConfigValues);
      const value = (key: 'withdrawal.min_amount' | 'withdrawal.daily_limit' | 'withdrawal.auto_approve_below') => {
        const found = items.find((i) => i.key === key)?.value;
        return typeof found === 'number' ? found : SYSTEM_CONFIG_DEFAULTS[key];
      };
      return { minAmount: value('withdrawal.min_amount'), dailyLimit: value('withdrawal.daily_limit'), autoApproveBelow: value('withdrawal.auto_approve_below') };
    },
  };
}
