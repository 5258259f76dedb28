import type { Transporter } from 'nodemailer';
import type { Config } from '../config/schema.ts';
import type { EmailTransport } from './transport.ts';

/** Sending mail takes at most this long; a hung server fails the message rather than the request. */
const TIMEOUT_MS = 15_000;

/**
 * SMTP through nodemailer; with `starttls` the connection must be upgraded before anything is sent.
 * nodemailer is loaded with the first message: loaded at start it added about 7 MiB to an idle
 * server's resident memory (docs/architecture.md#memory), and many instances never send mail.
 */
export function smtpTransport(config: Config['email']): EmailTransport {
  let transporter: Promise<Transporter> | undefined;
  const open = async () =>
    (await import('nodemailer')).default.createTransport({
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
      transporter ??= open();
      // The address as an address: a string would be parsed, and a stored "a.example<x@evil.example>"
      // would go to x@evil.example.
      await (await transporter).sendMail({
        from: config.from,
        ...message,
        to: { name: '', address: message.to },
      });
    },
  };
}
