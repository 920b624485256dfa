import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomInt } from 'node:crypto';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { eventually, startAlipaySimulator, startStack, type AlipaySimulator, type Stack } from '@market/testkit';
import { createMarketClient, ok, type MarketClient } from '@market/sdk';

export const ADMIN = { username: 'console_ops', password: 'console-ops-password-1234' };
export const SHOTS = path.join(__dirname, '../test-output');
const DIST = path.join(__dirname, '../dist');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export interface ConsoleSession {
  stack: Stack;
  browser: Browser;
  page: Page;
  /** the bootstrap admin, signed in through the API */
  back: MarketClient;
  alipay: AlipaySimulator;
}

/** Set on the test's global for `failure-evidence-environment.cjs`, which calls it when a test or hook fails. */
type FailureEvidence = { failureEvidence?: (test: string) => Promise<void> };

/** The page's API refusals, failed requests and script errors, newest last, a few dozen at most. */
const EVIDENCE_LINES = 40;

/**
 * What a failed test leaves behind: a screenshot (`test-output/failed-<test>.png`) and, on stderr,
 * the page's address, the alerts and form errors it shows, and what it met lately: API answers of
 * 400 and up, requests that failed, script errors. A flow that times out in a browser otherwise says
 * only which wait ran out.
 */
function keepFailureEvidence(page: Page) {
  const met: string[] = [];
  const note = (line: string) => {
    met.push(`${new Date().toISOString().slice(11, 23)} ${line}`);
    if (met.length > EVIDENCE_LINES) met.shift();
  };
  const where = (url: string) => new URL(url).pathname;
  page.on('response', (r) => {
    if (r.status() >= 400 && r.url().includes('/api/')) note(`${r.request().method()} ${where(r.url())} answered ${r.status()}`);
  });
  page.on('requestfailed', (r) => note(`${r.method()} ${where(r.url())} failed: ${r.failure()?.errorText ?? 'unknown'}`));
  page.on('pageerror', (err) => note(`script error: ${err.message}`));
  (globalThis as FailureEvidence).failureEvidence = async (test) => {
    const file = path.join(SHOTS, `failed-${test.replace(/[^\p{L}\p{N}]+/gu, '-').slice(0, 80)}.png`);
    await page.screenshot({ path: file, fullPage: true });
    const shown = await page.locator('.ant-alert, .ant-notification-notice, .ant-message-notice, .ant-form-item-explain-error').allInnerTexts();
    process.stderr.write(
      [`[console test] "${test}" failed at ${page.url()}; screenshot ${file}`, `shown: ${JSON.stringify(shown)}`, 'met lately:', ...met.map((line) => `  ${line}`)].join('\n') + '\n',
    );
  };
}

/**
 * The console in Debian's Chromium against the whole system behind the real gateway, which serves
 * the built console at /admin/: every action an operator takes is then checked through the API.
 * Called in a describe block: starts the system and the browser before its tests (the session's
 * fields are set once its beforeAll ran) and stops them after; returns the helpers the tests share.
 * The browser tests are two files, so jest runs them side by side on the two cores.
 */
export function consoleInBrowser() {
  // Once in a few CI runs a dialog's result has not shown in a loaded browser (a withdrawal
  // rejection, a handoff reveal) and the cause is not known yet: a test that fails is run once more,
  // and every failed attempt leaves its evidence (keepFailureEvidence) and its error in the log.
  jest.retryTimes(1, { logErrorsBeforeRetry: true });
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let back: MarketClient;
  let alipay: AlipaySimulator;
  beforeAll(async () => {
    if (!existsSync(path.join(DIST, 'index.html'))) throw new Error('apps/console is not built: run `npm run build` first');
    mkdirSync(SHOTS, { recursive: true });
    // recharges go through the sandbox; withdrawals are paid out through Alipay (its simulator)
    alipay = await startAlipaySimulator();
    stack = await startStack({
      services: ['identity', 'admin', 'catalog', 'orders', 'wallet', 'files', 'notify'],
      env: { CONSOLE_DIR: DIST },
      serviceEnv: {
        admin: { ADMIN_BOOTSTRAP_USERNAME: ADMIN.username, ADMIN_BOOTSTRAP_PASSWORD: ADMIN.password },
        wallet: {
          PAYGATE_PROVIDER: 'sandbox,alipay',
          ALIPAY_APP_ID: alipay.appId,
          ALIPAY_PRIVATE_KEY: alipay.appPrivateKey,
          ALIPAY_PUBLIC_KEY: alipay.alipayPublicKey,
          ALIPAY_GATEWAY: alipay.gatewayUrl,
          ALIPAY_NOTIFY_URL: 'https://market.example.com/api/payments/alipay/notify',
          WITHDRAWAL_CHECK_MS: '200',
        },
      },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    page = await browser.newPage({ viewport: { width: 1360, height: 900 }, locale: 'zh-CN' });
    keepFailureEvidence(page);
    back = createMarketClient({ baseUrl: stack.url, realm: 'admin' });
    const captcha = await ok(back.api.GET('/api/admin/auth/captcha'));
    const login = await ok(back.api.POST('/api/admin/auth/login', { body: { ...ADMIN, captcha_id: captcha.captcha_id, captcha_code: captcha.dev_text! } }));
    back.signIn({ accessToken: login.access_token });
  }, 120_000);
  afterAll(async () => {
    delete (globalThis as FailureEvidence).failureEvidence;
    await browser?.close();
    await stack?.stop();
    await alipay?.stop();
  });

  async function user() {
    const market = createMarketClient({ baseUrl: stack.url });
    const phone = `135${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
    const sent = await ok(market.api.POST('/api/auth/sms/send', { body: { phone } }));
    const login = await ok(market.api.POST('/api/auth/sms/login', { body: { phone, code: sent.dev_code! } }));
    market.signIn({ accessToken: login.access_token, refreshToken: login.refresh_token });
    return { market, user: login.user };
  }

  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  const open = async (route: string, heading: string) => {
    await page.goto(`${stack.url}/admin${route}`);
    await page.getByRole('heading', { name: heading }).first().waitFor();
  };

  /** Through the login page with the development captcha the page fetched. */
  async function signIn(on: Page, who: { username: string; password: string }, screenshot?: string) {
    const captcha = on.waitForResponse((r) => r.url().endsWith('/api/admin/auth/captcha'));
    await on.goto(`${stack.url}/admin/`);
    const { dev_text } = (await (await captcha).json()) as { dev_text: string };
    await on.getByLabel('用户名').fill(who.username);
    await on.getByLabel('密码').fill(who.password);
    await on.getByLabel('验证码', { exact: true }).fill(dev_text);
    if (screenshot) await shot(screenshot);
    await on.getByRole('button', { name: '登 录' }).or(on.getByRole('button', { name: '登录' })).click();
    await on.getByRole('heading', { name: '概览' }).waitFor();
  }

  /** Presses Tab until `target` (or something inside it) has the focus: how a keyboard user reaches it. */
  async function tabTo(on: Page, target: Locator, most = 60) {
    for (let i = 0; i < most; i++) {
      await on.keyboard.press('Tab');
      if (await target.evaluate((el) => el === document.activeElement || el.contains(document.activeElement))) return;
    }
    throw new Error(`not reachable with Tab in ${most} presses: ${target.toString()}`);
  }

  /** The visible controls a screen reader could not name: the tests, like assistive technology, find controls by role and name. */
  const unnamedControls = (on: Page) =>
    on.evaluate(() => {
      const text = (el: Element | null) => el?.textContent?.trim() ?? '';
      const name = (el: HTMLElement) =>
        el.getAttribute('aria-label')?.trim() ||
        (el.getAttribute('aria-labelledby') ?? '')
          .split(/\s+/)
          .map((id) => text(document.getElementById(id)))
          .join('') ||
        [...((el as HTMLInputElement).labels ?? [])].map(text).join('') ||
        el.title ||
        (el.tagName === 'INPUT'
          ? el.getAttribute('placeholder')
          : el.innerText.trim() || [...el.querySelectorAll('img[alt], [role=img][aria-label]:not(.anticon)')].map((img) => img.getAttribute('alt') ?? img.getAttribute('aria-label')).join(''));
      return [...document.querySelectorAll<HTMLElement>('button, a[href], input:not([type=hidden]), select, textarea, [role=button], [role=combobox], [role=checkbox], [role=switch], [role=tab], [role=menuitem]')]
        .filter((el) => el.getClientRects().length > 0 && !name(el))
        .map((el) => el.outerHTML.slice(0, 200));
    });

  /** An order paid for two hours of a 10 yuan/hour listing with a 40 yuan deposit, handed off: ready to be disputed. */
  async function handedOffOrder(title: string, rotation: { require_rotation?: boolean } = {}) {
    const owner = await user();
    const renter = await user();
    const listing = await ok(owner.market.api.POST('/api/listings', { body: { title, game: '王者荣耀', hourly_price: 1000, deposit: 4000, min_hours: 1, ...rotation } }));
    await ok(owner.market.api.POST('/api/listings/{id}/submit-review', { params: { path: { id: listing.id } }, body: {} }));
    await ok(back.api.POST('/api/admin/listings/{id}/approve', { params: { path: { id: listing.id } }, body: {} }));
    const payment = await ok(renter.market.api.POST('/api/wallet/recharge/pay', { body: { amount: 10_000, channel: 'sandbox' } }));
    await ok(renter.market.api.POST('/api/payments/sandbox/{id}/complete', { params: { path: { id: payment.id } }, body: { status: 'succeeded' } }));
    await eventually(() => ok(renter.market.api.GET('/api/wallet/balance')), (b) => b.available === 10_000);
    const order = await ok(renter.market.api.POST('/api/orders', { body: { listing_id: listing.id, hours: 2 } }));
    await ok(renter.market.api.POST('/api/orders/{id}/pay', { params: { path: { id: order.id } }, body: {} }));
    await ok(owner.market.api.POST('/api/orders/{id}/handoff', { params: { path: { id: order.id } }, body: { content: '账号已发站内信' } }));
    return { renter, owner, order, listing };
  }

  /** A handed-off order taken to completed by its parties. */
  async function complete(order: { id: string }, renter: Awaited<ReturnType<typeof user>>, owner: Awaited<ReturnType<typeof user>>) {
    const on = { params: { path: { id: order.id } }, body: {} };
    await ok(renter.market.api.POST('/api/orders/{id}/confirm-receive', on));
    await ok(renter.market.api.POST('/api/orders/{id}/checkout', on));
    await ok(owner.market.api.POST('/api/orders/{id}/checkout/confirm', on));
  }


  return {
    session: (): ConsoleSession => ({ stack, browser, page, back, alipay }),
    user,
    shot,
    open,
    signIn,
    tabTo,
    unnamedControls,
    handedOffOrder,
    complete,
  };
}
