export * from './reseal';
export * from './secret-box';
export * from './hash-chain';
