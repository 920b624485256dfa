export * from './env';
export * from './addresses';
