import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import type { I18nProvider } from '@refinedev/core';
import zhCN from './locales/zh-CN.json';
import en from './locales/en.json';

export type Locale = 'zh-CN' | 'en';

/** Every key of the texts, from the Chinese file (the back office's language): a misspelt key fails the type check. */
type Leaves<T, P extends string = ''> = { [K in keyof T & string]: T[K] extends string ? `${P}${K}` : Leaves<T[K], `${P}${K}.`> }[keyof T & string];
export type TextKey = Leaves<typeof zhCN>;

const STORAGE = 'market.console.locale';

export function currentLocale(): Locale {
  return i18next.language === 'en' ? 'en' : 'zh-CN';
}

const dayjsLocale = (locale: Locale) => (locale === 'en' ? 'en' : 'zh-cn');

void i18next.use(initReactI18next).init({
  resources: { 'zh-CN': { translation: zhCN }, en: { translation: en } },
  lng: localStorage.getItem(STORAGE) === 'en' ? 'en' : 'zh-CN',
  fallbackLng: 'zh-CN',
  // React escapes what it renders; a second escape would show &lt; in a ruling note
  interpolation: { escapeValue: false },
  initAsync: false,
});
dayjs.locale(dayjsLocale(currentLocale()));

/**
 * Refine's translations through i18next. Switching language changes i18next's language (the
 * screens re-render through react-i18next, App gives Ant Design and dayjs the same locale) and is
 * remembered for the next visit; no reload.
 */
export const i18nProvider: I18nProvider = {
  translate: (key: string, options?: unknown, defaultMessage?: string) => {
    const values = typeof options === 'object' && options !== null ? (options as Record<string, unknown>) : {};
    return i18next.t(key, { ...values, defaultValue: defaultMessage ?? (typeof options === 'string' ? options : key) });
  },
  changeLocale: async (locale: string) => {
    const next: Locale = locale === 'en' ? 'en' : 'zh-CN';
    localStorage.setItem(STORAGE, next);
    dayjs.locale(dayjsLocale(next));
    await i18next.changeLanguage(next);
  },
  getLocale: () => currentLocale(),
};

/** The console's text in the current language: `t('menu.users')`, `t('unit.hours', { count: 72 })`. */
export const t = (key: TextKey, values?: Record<string, unknown>): string => i18next.t(key, values);

/** The kinds of values the API answers as codes, each translated (`label('order', 'pending_handoff')` → 待交付). */
export type Enum = keyof (typeof zhCN)['status'];
export function label(kind: Enum, value: string | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return i18next.t(`status.${kind}.${value}`, { defaultValue: value });
}
