export * from './access-tokens';
export * from './assertion';
export * from './expiring-cache';
export * from './revocation';
