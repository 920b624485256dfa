export * from './access-tokens';
export * from './assertion';
export * from './caller';
export * from './expiring-cache';
export * from './internal-keys';
export * from './revocation';
