// Workspace boundaries (docs/service-guide.md "Boundaries"). packages/testkit/test/boundaries.test.ts runs
// it, so `npm test` fails on a violation; by hand: `npx depcruise --config .dependency-cruiser.cjs packages services scripts`.
// Symlinks are kept, so an import of another workspace resolves to node_modules/@market/<name>/…: through
// its package.json `exports` only, and typed npm / npm-dev / npm-no-pkg by the importer's own package.json.
const SERVICES = '(admin|catalog|files|gateway|identity|notify|orders|wallet)';
const WORKSPACE = '^(services|packages|apps)/([^/]+)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-relative-import-across-workspaces',
      comment: 'A workspace reaches another only by package name and its declared entries, never by a ../ path.',
      severity: 'error',
      from: { path: WORKSPACE },
      // the root's shared config (jest.preset.js) is no workspace
      to: { dependencyTypes: ['local'], pathNot: ['^$1/$2/', '^[^/]+$'] },
    },
    {
      name: 'service-imports-only-contracts-and-kit',
      comment: 'A service runs on @market/contracts, @market/shared and its own files: never another service or the testkit.',
      severity: 'error',
      from: { path: `^services/${SERVICES}/src/` },
      to: { path: '^node_modules/@market/', pathNot: '^node_modules/@market/(contracts|shared)/' },
    },
    {
      name: 'service-tests-go-through-the-testkit',
      comment: "A service's tests reach other services only through @market/testkit, which imports their package entries.",
      severity: 'error',
      from: { path: `^services/${SERVICES}/test/` },
      to: { path: '^node_modules/@market/', pathNot: '^node_modules/@market/(contracts|shared|testkit)/' },
    },
    {
      name: 'contracts-are-zod-only',
      comment: 'What crosses a boundary is data: zod and its OpenAPI extension, nothing else.',
      severity: 'error',
      from: { path: '^packages/contracts/src/' },
      to: { pathNot: ['^packages/contracts/src/', '^node_modules/(zod|@asteasolutions/zod-to-openapi)/'] },
    },
    {
      name: 'kit-imports-no-service',
      comment: 'The runtime kit knows no service, no app and no test harness.',
      severity: 'error',
      from: { path: '^packages/shared/src/' },
      to: { path: '^node_modules/@market/', pathNot: '^node_modules/@market/contracts/' },
    },
    {
      name: 'workspace-dependency-declared',
      comment: "Every workspace a workspace imports is in its package.json, so turbo builds it first and prune keeps it.",
      severity: 'error',
      from: { pathNot: '/test/' },
      to: { path: '^node_modules/@market/', dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'test-workspace-dependency-declared',
      comment:
        'Tests may use @market/testkit undeclared: it depends on the workspaces it starts, and declaring it back would make a cycle turbo refuses.',
      severity: 'error',
      from: { path: '/test/' },
      to: { path: '^node_modules/@market/', pathNot: '^node_modules/@market/testkit/', dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'domain-is-pure',
      comment:
        "A service's domain (rules, state tables, planners) imports only its own domain, the contracts and the kit's transport-free areas: never its http edge, persistence, adapters, application or jobs.",
      severity: 'error',
      from: { path: `^services/${SERVICES}/src/domain/` },
      to: { path: `^services/${SERVICES}/src/(http|persistence|adapters|application|jobs|events)/` },
    },
    {
      name: 'application-knows-no-http',
      comment: 'Use cases speak in domain terms: HTTP (statuses, problems, request shapes) belongs to the edge in src/http.',
      severity: 'error',
      from: { path: `^services/${SERVICES}/src/(application|domain|jobs|events|persistence|adapters)/` },
      to: { path: `^services/${SERVICES}/src/http/` },
    },
    {
      name: 'domain-does-no-io',
      comment: "A service's domain does no I/O: not the kit's database, events, HTTP, Redis or service runner, nor a driver.",
      severity: 'error',
      from: { path: `^services/${SERVICES}/src/domain/` },
      to: {
        path: [
          '^node_modules/@market/shared/(dist|src)/(db|events|http|redis|service|telemetry|metrics)/',
          '^node_modules/(express|pg|typeorm|amqplib|redis|undici)/',
        ],
      },
    },
    {
      name: 'no-unresolvable',
      comment: 'An import that resolves to nothing is a typo, a missing dependency or a path past a package entry.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The workspaces' own build output is not cruised; an import of @market/shared/<area> or
    // @market/contracts still shows, resolved to node_modules/@market/<name>/dist/…, so the rules see it.
    exclude: { path: '^(packages|services|apps)/[^/]+/(dist|coverage)/' },
    preserveSymlinks: true,
    // TypeScript 7 offers no compiler API dependency-cruiser can load; swc parses the sources instead.
    parser: 'swc',
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@market/source', 'require', 'import', 'node', 'default'],
      mainFields: ['main', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.cjs', '.mjs', '.json'],
    },
  },
};
