export * from './data-source';
export * from './errors';
export * from './migration';
export * from './pagination';
export * from './sql';
export * from './uuid';
export * from './snapshot-check';
export { MAX_PREPARED_PER_CONNECTION } from './prepared-statements';
export { PooledClient, READ_ONLY_SQLSTATE } from './pooled-client';
