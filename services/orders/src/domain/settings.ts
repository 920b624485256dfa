/**
 * The system configuration orders works by (CONTRACT §9 plus `order.require_realname`), owned by
 * the admin service. These defaults apply only until the first value arrives from it.
 */
export interface OrderSettings {
  'order.payment_timeout_minutes': number;
  'order.handoff_timeout_minutes': number;
  'order.receive_timeout_minutes': number;
  'order.checkout_grace_minutes': number;
  'order.checkout_confirm_timeout_minutes': number;
  'order.correction_confirm_timeout_minutes': number;
  'platform.commission_rate_bps': number;
  'order.require_realname': boolean;
}

export type SettingKey = keyof OrderSettings;
export type TimeoutKey = Exclude<SettingKey, 'platform.commission_rate_bps' | 'order.require_realname'>;

export const DEFAULT_SETTINGS: OrderSettings = {
  'order.payment_timeout_minutes': 15,
  'order.handoff_timeout_minutes': 30,
  'order.receive_timeout_minutes': 30,
  'order.checkout_grace_minutes': 30,
  'order.checkout_confirm_timeout_minutes': 1440,
  'order.correction_confirm_timeout_minutes': 1440,
  'platform.commission_rate_bps': 500,
  'order.require_realname': false,
};

export function isSettingKey(key: string): key is SettingKey {
  return Object.prototype.hasOwnProperty.call(DEFAULT_SETTINGS, key);
}
