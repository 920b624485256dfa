import { startComponent, type Component, type ComponentOptions } from './component/start-component';
import { api, startStack, type Stack, type StackOptions } from './index';
import { Market, startMarket, type Client } from './market';

/**
 * What the tests of the enclosing `describe` share: started before the first of them, stopped after
 * the last (a start that failed halfway is stopped by the file's teardown). The returned function
 * gives it to tests and hooks; read before the start, it throws.
 */
function perSuite<T>(start: () => Promise<T>, stop: (started: T) => Promise<void>, startTimeoutMs?: number): () => T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, startTimeoutMs);
  afterAll(async () => {
    if (started !== undefined) await stop(started);
  });
  return () => {
    if (started === undefined) throw new Error('read in a test or hook: it starts before the tests of its describe');
    return started;
  };
}

export interface SuiteStack {
  readonly stack: Stack;
  /** `api(stack.url)` */
  readonly client: Client;
}

/** A stack of the describe's own (`startStack(opts)`) and a client of its gateway. */
export function stackPerSuite(opts: StackOptions, startTimeoutMs?: number): SuiteStack {
  const current = perSuite(
    async () => {
      const stack = await startStack(opts);
      return { stack, client: api(stack.url) };
    },
    ({ stack }) => stack.stop(),
    startTimeoutMs,
  );
  return {
    get stack() {
      return current().stack;
    },
    get client() {
      return current().client;
    },
  };
}

export interface SuiteMarket {
  readonly stack: Stack;
  readonly market: Market;
}

/** The market of the describe's own (`startMarket(opts)`) and its `Market` of helpers. */
export function marketPerSuite(opts?: Parameters<typeof startMarket>[0], startTimeoutMs?: number): SuiteMarket {
  const current = perSuite(() => startMarket(opts).then((stack) => new Market(stack)), (market) => market.stack.stop(), startTimeoutMs);
  return {
    get stack() {
      return current().stack;
    },
    get market() {
      return current();
    },
  };
}

/** One service of the describe's own (`startComponent`), its contract violations failing each test that caused them. */
export function componentPerSuite(name: Parameters<typeof startComponent>[0], opts?: ComponentOptions): { readonly component: Component } {
  const current = perSuite(() => startComponent(name, opts), (component) => component.stop());
  afterEach(() => current().verify());
  return {
    get component() {
      return current();
    },
  };
}

/**
 * The promise rejections nobody handled while the describe's tests ran, for the tests to expect
 * none: a fault the code under test absorbs must not leave one behind.
 */
export function unhandledRejections(): unknown[] {
  const seen: unknown[] = [];
  const record = (reason: unknown) => seen.push(reason);
  beforeAll(() => {
    process.on('unhandledRejection', record);
  });
  afterAll(() => {
    process.off('unhandledRejection', record);
  });
  return seen;
}
