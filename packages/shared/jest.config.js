// The fault tests stall the machine's shared Redis, Postgres or broker for everyone: they run in the
// fault pass (`npm run test:faults`, after the parallel suites), never beside other suites.
const preset = require('../../jest.preset.js')(__dirname);
module.exports = { ...preset, testPathIgnorePatterns: ['/node_modules/', ...(process.env.MARKET_FAULT_PASS ? [] : ['/dependency-faults'])] };
