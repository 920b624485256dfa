export * from './audit';
export * from './bus';
export * from './envelope';
export * from './inbox';
export * from './outbox';
export * from './topology';
export * from './committed-events';
