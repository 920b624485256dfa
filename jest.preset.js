// Shared jest setup: @swc/jest strips types (ts-jest refuses TypeScript 7) and keeps TypeORM decorators;
// @market/contracts and @market/shared/<area> resolve to their sources so tests never run against a stale build;
// so do the services' package entries (`@market/orders/service`), through their `@market/source` export condition.
const path = require('node:path');

module.exports = (dir) => ({
  rootDir: dir,
  testEnvironment: 'node',
  testEnvironmentOptions: { customExportConditions: ['@market/source', 'node', 'node-addons'] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs', ignoreDynamic: true },
      },
    ],
  },
  moduleNameMapper: {
    '^@market/contracts$': path.join(__dirname, 'packages/contracts/src/index.ts'),
    '^@market/shared/([a-z]+)$': path.join(__dirname, 'packages/shared/src/$1/index.ts'),
    '^@market/testkit$': path.join(__dirname, 'packages/testkit/src/index.ts'),
  },
  // jest's runtime with V8's code cache kept from test file to test file of a worker (ADR 0074).
  runtime: path.join(__dirname, 'scripts/jest-compile-cache.cjs'),
  // Stops whatever a test file started and left open (a failed setup), so jest can exit.
  setupFilesAfterEnv: [path.join(__dirname, 'packages/testkit/src/teardown.ts')],
  testTimeout: 60000,
  // Two files of a workspace at once, two workspaces at once (turbo): a test stack leases a vhost of
  // its jest worker's, reused from file to file, so the broker no longer makes and deletes a vhost of
  // quorum queues per stack, the churn that stalled and once wedged it at this concurrency (ADR 0069).
  // JEST_WORKERS sets another number.
  maxWorkers: Number(process.env.JEST_WORKERS ?? 2),
});
