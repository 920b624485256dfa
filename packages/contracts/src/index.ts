export * from './api';
export * from './common';
export * from './events';
export * from './internal';
export * from './routing';
export * from './services';
export * from './system-config';
export { orNull, z } from './zod';
