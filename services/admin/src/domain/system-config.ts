import { z } from 'zod';

const TimeoutMinutes = z.number().int().min(1).max(43_200);
const CommissionRateBps = z.number().int().min(0).max(5000);

/**
 * Every configurable key with the schema its value must satisfy (CONTRACT §9). Defaults and
 * descriptions are seeded by the migration; a key absent here cannot be changed.
 */
export const SYSTEM_CONFIG_SCHEMAS: Record<string, z.ZodType> = {
  'order.payment_timeout_minutes': TimeoutMinutes,
  'order.handoff_timeout_minutes': TimeoutMinutes,
  'order.receive_timeout_minutes': TimeoutMinutes,
  'order.checkout_grace_minutes': TimeoutMinutes,
  'order.checkout_confirm_timeout_minutes': TimeoutMinutes,
  'order.correction_confirm_timeout_minutes': TimeoutMinutes,
  'platform.commission_rate_bps': CommissionRateBps,
  'order.require_realname': z.boolean(),
};

export function systemConfigSchema(key: string): z.ZodType | undefined {
  return Object.prototype.hasOwnProperty.call(SYSTEM_CONFIG_SCHEMAS, key) ? SYSTEM_CONFIG_SCHEMAS[key] : undefined;
}
