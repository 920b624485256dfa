import type { Logger } from '@market/shared/logging';
import { maskPhone } from '../domain/phone';
import type { SmsProvider } from '../application/ports';

/** Development only: nothing leaves the machine, the code goes back in the response and never into the log. */
export class LogSmsProvider implements SmsProvider {
  readonly exposesCodes = true;

  constructor(private readonly log: Logger) {}

  async send(phone: string) {
    this.log.debug({ phone: maskPhone(phone) }, 'sms code sent');
  }
}
