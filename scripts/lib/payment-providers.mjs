// What `npm start` tells about the wallet's payment providers: which are enabled, and which are
// missing (no keys), so nobody wonders why a recharge opens the sandbox's page instead of Alipay.
// The wallet itself refuses to start with an incomplete channel; this only describes the choice.

const KEYS = {
  alipay: ['ALIPAY_APP_ID', 'ALIPAY_PRIVATE_KEY', 'ALIPAY_NOTIFY_URL'],
  wechatpay: ['WECHATPAY_APP_ID', 'WECHATPAY_MCH_ID', 'WECHATPAY_PRIVATE_KEY', 'WECHATPAY_CERTIFICATE', 'WECHATPAY_API_V3_KEY', 'WECHATPAY_NOTIFY_URL'],
};
const ALIPAY_CERTS = ['ALIPAY_APP_CERT', 'ALIPAY_PUBLIC_CERT', 'ALIPAY_ROOT_CERT'];

/** One line per fact about the payment providers the wallet will start with. */
export function describePaymentProviders(env) {
  const enabled = (env.PAYGATE_PROVIDER ?? 'sandbox').split(',').map((s) => s.trim()).filter(Boolean);
  const development = (env.NODE_ENV ?? 'development') === 'development';
  const lines = [];
  const missing = ['alipay', 'wechatpay'].filter((p) => !enabled.includes(p));
  if (missing.length > 0) {
    lines.push(`payments: ${missing.join(' and ')} not enabled (PAYGATE_PROVIDER=${enabled.join(',')}); see docs/payments.md to add their keys`);
  }
  for (const provider of ['alipay', 'wechatpay'].filter((p) => enabled.includes(p))) {
    const absent = KEYS[provider].filter((k) => !env[k]);
    if (provider === 'alipay' && !env.ALIPAY_PUBLIC_KEY && ALIPAY_CERTS.some((k) => !env[k])) absent.push('ALIPAY_PUBLIC_KEY or the ALIPAY_*_CERT certificates');
    if (absent.length > 0) lines.push(`payments: ${provider} is enabled but misses ${absent.join(', ')}; the wallet will refuse to start`);
    else if (provider === 'alipay' && ALIPAY_CERTS.some((k) => !env[k])) lines.push('payments: alipay in public-key mode: recharges only, Alipay pays out only in certificate mode (ALIPAY_*_CERT)');
  }
  if (enabled.includes('sandbox') && development) {
    lines.push('payments: the sandbox takes recharges on its own pay page, and pays withdrawals of channels without keys at once when the back office approves them (no money moves)');
  }
  return lines;
}
