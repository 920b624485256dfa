export * from './periodic-job';
export * from './run';
