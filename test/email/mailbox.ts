import { SMTPServer } from 'smtp-server';

export interface Mail {
  to: string[];
  raw: string;
}

/** A real SMTP server on a free loopback port that keeps every message it accepts. */
export interface Mailbox {
  port: number;
  mails: Mail[];
  /** Resolves with the next message to `to` that arrives after this call. */
  next(to: string): Promise<Mail>;
  close(): Promise<void>;
}

export async function startMailbox(opts: { user?: string; password?: string } = {}): Promise<Mailbox> {
  const mails: Mail[] = [];
  const waiters: { to: string; resolve(m: Mail): void }[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: !opts.user,
    allowInsecureAuth: true,
    onAuth(auth, _session, done) {
      if (auth.username === opts.user && auth.password === opts.password) done(null, { user: auth.username });
      else done(new Error('invalid credentials'));
    },
    onData(stream, session, done) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        raw += chunk;
      });
      stream.on('end', () => {
        const mail = { to: session.envelope.rcptTo.map((r) => r.address), raw };
        mails.push(mail);
        for (const w of waiters.splice(0)) {
          if (mail.to.includes(w.to)) w.resolve(mail);
          else waiters.push(w);
        }
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    mails,
    next: (to) => new Promise((resolve) => waiters.push({ to, resolve })),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link in a message (quoted-printable soft line breaks undone). */
export function linkIn(mail: Mail): string {
  const body = mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const link = /https?:\/\/[^\s]+/.exec(body.slice(body.indexOf('\r\n\r\n')))?.[0];
  if (!link) throw new Error(`no link in:\n${mail.raw}`);
  return link;
}
