import type { Logger } from '../log.ts';
import type { EmailTransport } from './transport.ts';

/**
 * For development (`[email] transport = "log"`): the message is written to the log instead of sent,
 * so the operator can follow its link. Not for production, where the link would be readable by anyone
 * with the log.
 */
export function logTransport(log: Logger): EmailTransport {
  return {
    async send(message) {
      log.info('email not sent (transport = "log")', { ...message });
    },
  };
}
