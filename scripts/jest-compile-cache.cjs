// jest's runtime (the `runtime` of jest.preset.js), with V8's code cache kept across the test files
// of a jest worker (ADR 0074). jest gives every test file a fresh module registry, so each file
// compiles again every module it loads, its own and node_modules' alike (a file starting a stack
// loads some 3,000 modules): about a sixth of the CPU of a suite went to that compilation alone.
// Compiled once, a module's code cache is handed to V8 for the next file that loads the same source,
// which then skips the parse. The cache is keyed by the file and a hash of the code jest compiles, so
// a changed source compiles afresh, and V8 itself checks a cache against the source and its flags and
// compiles normally when it rejects one.
const vm = require('node:vm');
const { createHash } = require('node:crypto');

const compile = vm.compileFunction;
const codeCache = new Map();

vm.compileFunction = function compileWithCodeCache(code, params, options = {}) {
  // Code with a dynamic import() is compiled afresh: V8 does not take the import callback jest
  // gives each compilation from a cached compilation (the import would fail).
  if (!options.filename || options.cachedData || options.produceCachedData || code.includes('import(')) return compile.call(this, code, params, options);
  const key = `${options.filename}\0${createHash('sha1').update(code).digest('base64')}`;
  const cachedData = codeCache.get(key);
  const compiled = compile.call(this, code, params, cachedData ? { ...options, cachedData } : { ...options, produceCachedData: true });
  if (cachedData && compiled.cachedDataRejected) codeCache.delete(key);
  else if (!cachedData && compiled.cachedDataProduced) codeCache.set(key, compiled.cachedData);
  return compiled;
};

module.exports = require('jest-runtime');
