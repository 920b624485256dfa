import type { RealnameVerifier } from '../application/ports';

/** Development only: decides at once, failing names that contain "fail" or "失败" so both outcomes can be tried. */
export class SandboxRealnameVerifier implements RealnameVerifier {
  async verify({ realName }: { realName: string }) {
    return /fail|失败/i.test(realName) ? ('failed' as const) : ('verified' as const);
  }
}
