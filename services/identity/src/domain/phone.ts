import { mask } from '@market/shared/crypto';

/** `13800138000`, `8613800138000` and `+8613800138000` are one number, stored as its 11 digits. */
export function normalizePhone(phone: string): string {
  return phone.trim().replace(/^\+?86(?=1\d{10}$)/, '');
}

export function maskPhone(phone: string): string {
  return mask(phone, 3, 4);
}

export function defaultNickname(phone: string): string {
  return `用户${phone.slice(-4)}`;
}
