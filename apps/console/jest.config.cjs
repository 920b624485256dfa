// Browser tests (jest + playwright-core against a real stack); component tests run under vitest.
const preset = require('../../jest.preset.js')(__dirname);
module.exports = { ...preset, testEnvironment: require('node:path').join(__dirname, 'test/failure-evidence-environment.cjs'), testMatch: ['<rootDir>/test/**/*.e2e.test.ts'], moduleNameMapper: { ...preset.moduleNameMapper, '^@market/sdk$': require('node:path').join(__dirname, '../../packages/sdk/src/index.ts') } };
