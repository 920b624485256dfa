export * from './reseal';
export * from './secret-box';
