import { startComponent, type Component, type ComponentOptions } from './component/start-component';
import { api, startStack, type Stack, type StackOptions } from './index';
import { Market, startMarket, type Client } from './market';

/**
 * What the tests of the enclosing `describe` share: started before the first of them, stopped after
 * the last (a start that failed halfway is stopped by the file's teardown). The object returned
 * stands for what `start` gives once it has: read its fields in tests and hooks; read before the
 * start, they throw.
 */
export function perSuite<T extends object>(start: () => Promise<T>, stop: (started: T) => Promise<unknown>, startTimeoutMs?: number): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, startTimeoutMs);
  afterAll(async () => {
    if (started !== undefined) await stop(started);
  });
  return new Proxy({} as T, {
    get(_, field) {
      if (started === undefined) throw new Error(`${String(field)} is read in a test or hook: it starts before the tests of its describe`);
      return Reflect.get(started, field);
    },
  });
}

export interface SuiteStack {
  readonly stack: Stack;
  /** `api(stack.url)` */
  readonly client: Client;
}

/** A stack of the describe's own (`startStack(opts)`) and a client of its gateway. */
export function stackPerSuite(opts: StackOptions, startTimeoutMs?: number): SuiteStack {
  return perSuite(
    async () => {
      const stack = await startStack(opts);
      return { stack, client: api(stack.url) };
    },
    ({ stack }) => stack.stop(),
    startTimeoutMs,
  );
}

export interface SuiteMarket {
  readonly stack: Stack;
  readonly market: Market;
}

/** The market of the describe's own (`startMarket(opts)`) and its `Market` of helpers. */
export function marketPerSuite(opts?: Parameters<typeof startMarket>[0], startTimeoutMs?: number): SuiteMarket {
  return perSuite(
    async () => {
      const stack = await startMarket(opts);
      return { stack, market: new Market(stack) };
    },
    ({ stack }) => stack.stop(),
    startTimeoutMs,
  );
}

/** One service of the describe's own (`startComponent`), its contract violations failing each test that caused them. */
export function componentPerSuite(name: Parameters<typeof startComponent>[0], opts?: ComponentOptions): { readonly component: Component } {
  const started = perSuite(async () => ({ component: await startComponent(name, opts) }), ({ component }) => component.stop());
  afterEach(() => started.component.verify());
  return started;
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
