import { afterEach, describe, expect, test } from 'bun:test';
import { parseConfig } from '../../src/config/load.ts';
import { createEmailTransport } from '../../src/email/transport.ts';
import type { Logger } from '../../src/log.ts';
import { silentLogger } from '../../src/log.ts';
import { type Mailbox, startMailbox } from './mailbox.ts';

let box: Mailbox | undefined;
afterEach(async () => {
  await box?.close();
  box = undefined;
});

const smtp = (port: number, extra = '') =>
  parseConfig(
    `[email]\ntransport = "smtp"\nhost = "127.0.0.1"\nport = ${port}\nfrom = "Verity <noreply@example.com>"\n${extra}`,
  ).email;

describe('email transports', () => {
  test('smtp delivers to a real server, authenticating with user and password', async () => {
    box = await startMailbox({ user: 'verity', password: 's3cret' });
    const t = createEmailTransport(
      smtp(box.port, 'starttls = false\nuser = "verity"\npassword = "s3cret"'),
      silentLogger,
    );
    const arrived = box.next('dev@example.com');
    await t.send({ to: 'dev@example.com', subject: 'Hello', text: 'Follow https://portal.example/x' });
    const mail = await arrived;
    expect(mail.raw).toContain('Subject: Hello');
    expect(mail.raw).toContain('From: Verity <noreply@example.com>');
    expect(mail.raw).toContain('https://portal.example/x');
  });

  // An address stored before the portal's address rule must not be read as a display name and another
  // mailbox: the mail would verify, or reset, someone else's.
  test('smtp sends to the address as given, never to one parsed out of it', async () => {
    box = await startMailbox();
    const t = createEmailTransport(smtp(box.port, 'starttls = false'), silentLogger);
    await t
      .send({ to: 'ceo.example.com<x@evil.example>', subject: 'Hello', text: 'link' })
      .catch(() => undefined);
    // A mail after it, so that one that went anywhere would have arrived first.
    const arrived = box.next('dev@example.com');
    await t.send({ to: 'dev@example.com', subject: 'Hello', text: 'link' });
    await arrived;
    expect(box.mails.flatMap((m) => m.to)).toEqual(['dev@example.com']);
  });

  test('smtp with wrong credentials rejects and nothing arrives', async () => {
    box = await startMailbox({ user: 'verity', password: 's3cret' });
    const t = createEmailTransport(
      smtp(box.port, 'starttls = false\nuser = "verity"\npassword = "wrong"'),
      silentLogger,
    );
    await expect(t.send({ to: 'dev@example.com', subject: 'Hello', text: 'x' })).rejects.toThrow();
    expect(box.mails).toEqual([]);
  });

  test('starttls = true (the default) refuses to send over a server without STARTTLS', async () => {
    box = await startMailbox();
    const t = createEmailTransport(smtp(box.port), silentLogger);
    await expect(t.send({ to: 'dev@example.com', subject: 'Hello', text: 'secret link' })).rejects.toThrow();
    expect(box.mails).toEqual([]);
  });

  test('log writes the message, link included, to the log', async () => {
    const lines: Record<string, unknown>[] = [];
    const log: Logger = { ...silentLogger, info: (msg, fields) => lines.push({ msg, ...fields }) };
    await createEmailTransport(parseConfig('').email, log).send({
      to: 'a@example.com',
      subject: 'S',
      text: 'go https://x.example/l',
    });
    expect(lines).toEqual([
      {
        msg: 'email not sent (transport = "log")',
        to: 'a@example.com',
        subject: 'S',
        text: 'go https://x.example/l',
      },
    ]);
  });

  test('the config refuses smtp without a host, and a password without a user', () => {
    expect(() => parseConfig('[email]\ntransport = "smtp"')).toThrow(/email\.host/);
    expect(() => parseConfig('[email]\npassword = "x"')).toThrow(/email\.user/);
    expect(() => parseConfig('[email]\ntransport = "sendmail"')).toThrow(/email\.transport/);
  });
});
