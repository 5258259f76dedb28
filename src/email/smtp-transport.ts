import nodemailer from 'nodemailer';
import type { Config } from '../config/schema.ts';
import type { EmailTransport } from './transport.ts';

/** Sending mail takes at most this long; a hung server fails the message rather than the request. */
const TIMEOUT_MS = 15_000;

/** SMTP through nodemailer; with `starttls` the connection must be upgraded before anything is sent. */
export function smtpTransport(config: Config['email']): EmailTransport {
  const transporter = nodemailer.createTransport({
    host: config.host,
    port: config.port,
    secure: false,
    requireTLS: config.starttls,
    ignoreTLS: !config.starttls,
    auth: config.user ? { user: config.user, pass: config.password } : undefined,
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  });
  return {
    async send(message) {
      await transporter.sendMail({ from: config.from, ...message });
    },
  };
}
