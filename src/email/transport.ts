import type { Config } from '../config/schema.ts';
import type { Logger } from '../log.ts';
import { logTransport } from './log-transport.ts';
import { smtpTransport } from './smtp-transport.ts';

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends one message; rejects when the message was not accepted for delivery. */
export interface EmailTransport {
  send(message: EmailMessage): Promise<void>;
}

/** The transport `[email] transport` names. */
export function createEmailTransport(config: Config['email'], log: Logger): EmailTransport {
  return config.transport === 'smtp' ? smtpTransport(config) : logTransport(log);
}
