/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import { CsrfField, PageHead } from '../../web/layout.tsx';
import type { Messages } from '../messages/index.ts';
import { PORTAL_CSS } from './styles.ts';

export { CsrfField };

/** What every portal page gets from the router. */
export interface PortalProps {
  m: Messages;
  nonce: string;
  csrf: string;
  /** Path prefix of the portal ("/developer"). */
  base: string;
  /** The signed-in developer's email, when there is one (shows the navigation). */
  signedInEmail?: string;
  /** Which navigation entry is current. */
  section?: 'apps' | 'keys' | 'account';
}

/**
 * The copy buttons: hidden until this script runs, so without JavaScript the value is simply there to
 * select. It copies the text of the element named by `data-copy` and says so to screen readers.
 */
const COPY_SCRIPT = `document.querySelectorAll('button[data-copy]').forEach(function(b){b.hidden=false;b.addEventListener('click',function(){var t=document.getElementById(b.getAttribute('data-copy'));if(!t)return;var done=function(){var s=document.getElementById(b.getAttribute('data-copy')+'-status');if(s)s.textContent=b.getAttribute('data-done');};if(navigator.clipboard&&navigator.clipboard.writeText){navigator.clipboard.writeText(t.textContent).then(done,function(){});}else{var r=document.createRange();r.selectNodeContents(t);var sel=getSelection();sel.removeAllRanges();sel.addRange(r);document.execCommand('copy');done();}});});`;

export function PortalLayout(props: PortalProps & { title: string; children?: Child }) {
  const { m, base } = props;
  const link = (section: PortalProps['section'], href: string, label: string) => (
    <li>
      <a href={href} aria-current={props.section === section ? 'page' : undefined}>
        {label}
      </a>
    </li>
  );
  return (
    <html lang={m.lang}>
      <PageHead
        title={`${props.title} · ${m.portalName} · ${m.productName}`}
        nonce={props.nonce}
        css={PORTAL_CSS}
      />
      <body class="page">
        <a class="skip" href="#main">
          {m.skipToContent}
        </a>
        <header>
          <span class="brand">{`${m.productName} · ${m.portalName}`}</span>
          {props.signedInEmail ? (
            <>
              <nav aria-label={m.portalName}>
                <ul>
                  {link('apps', `${base}/apps`, m.navApps)}
                  {link('keys', `${base}/keys`, m.navKeys)}
                  {link('account', `${base}/account`, m.navAccount)}
                </ul>
              </nav>
              <span class="spacer" />
              <span class="who">{m.signedInAs(props.signedInEmail)}</span>
              <form method="post" action={`${base}/signout`} class="inline">
                <CsrfField token={props.csrf} />
                <button type="submit" class="secondary">
                  {m.signOut}
                </button>
              </form>
            </>
          ) : null}
        </header>
        <main id="main">{props.children}</main>
        <script nonce={props.nonce} dangerouslySetInnerHTML={{ __html: COPY_SCRIPT }} />
      </body>
    </html>
  );
}

/** Errors of one form: a message per field id, in the order the fields appear. */
export type FieldErrors = Record<string, string>;

/** The summary at the top of a form that failed: each problem links to its field. */
export function ErrorSummary(props: { m: Messages; errors?: FieldErrors; general?: string }) {
  const entries = Object.entries(props.errors ?? {});
  if (!entries.length && !props.general) return null;
  return (
    <div
      class="summary"
      role="alert"
      tabindex={-1}
      id="error-summary"
      aria-labelledby="error-summary-title"
      // Focus starts at the problems, whose links lead to each field (no script needed).
      autofocus
    >
      <h2 id="error-summary-title">{props.m.errorSummaryTitle}</h2>
      <ul>
        {props.general ? <li>{props.general}</li> : null}
        {entries.map(([id, message]) => (
          <li>
            <a href={`#${id}`}>{message}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** aria-describedby for a field with an optional hint and error. */
export function describedBy(id: string, hint: boolean, errors?: FieldErrors): string | undefined {
  const ids = [hint ? `${id}-hint` : '', errors?.[id] ? `${id}-error` : ''].filter(Boolean);
  return ids.length ? ids.join(' ') : undefined;
}

export function Hint({ id, text }: { id: string; text?: string }) {
  return text ? (
    <p class="hint" id={`${id}-hint`}>
      {text}
    </p>
  ) : null;
}

export function FieldError({ id, errors }: { id: string; errors?: FieldErrors }) {
  const message = errors?.[id];
  return message ? (
    <p class="field-error" id={`${id}-error`}>
      {message}
    </p>
  ) : null;
}

interface FieldProps {
  id: string;
  label: string;
  hint?: string;
  errors?: FieldErrors;
}

/** A form control with its label, and its hint and error next to it. */
function Field(props: FieldProps & { children?: Child }) {
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <Hint id={props.id} text={props.hint} />
      <FieldError id={props.id} errors={props.errors} />
      {props.children}
    </div>
  );
}

/** The attributes tying a control to its hint and error. */
const fieldAria = (props: FieldProps) => ({
  'aria-invalid': props.errors?.[props.id] ? ('true' as const) : undefined,
  'aria-describedby': describedBy(props.id, !!props.hint, props.errors),
});

/** A labelled text-like input with its hint and error next to it. */
export function TextField(props: {
  id: string;
  name?: string;
  label: string;
  hint?: string;
  value?: string;
  type?: 'text' | 'email' | 'password' | 'url';
  errors?: FieldErrors;
  required?: boolean;
  autocomplete?: string;
  maxlength?: number;
}) {
  return (
    <Field {...props}>
      <input
        id={props.id}
        name={props.name ?? props.id}
        type={props.type ?? 'text'}
        value={props.type === 'password' ? undefined : (props.value ?? '')}
        required={props.required}
        autocomplete={props.autocomplete}
        maxlength={props.maxlength}
        {...fieldAria(props)}
      />
    </Field>
  );
}

export function TextArea(props: {
  id: string;
  label: string;
  hint?: string;
  value?: string;
  errors?: FieldErrors;
  required?: boolean;
  rows?: number;
}) {
  return (
    <Field {...props}>
      <textarea
        id={props.id}
        name={props.id}
        rows={props.rows ?? 4}
        required={props.required}
        {...fieldAria(props)}
      >
        {props.value ?? ''}
      </textarea>
    </Field>
  );
}

/** A value shown once (secret, key) or worth copying (client ID), with a copy button. */
export function CopyValue(props: { m: Messages; id: string; label: string; value: string }) {
  return (
    <div>
      <p class="hint" id={`${props.id}-label`}>
        {props.label}
      </p>
      <div class="secret">
        <code id={props.id}>{props.value}</code>
        <button
          type="button"
          class="secondary"
          data-copy={props.id}
          data-done={props.m.copied}
          hidden
          aria-label={`${props.m.copy}: ${props.label}`}
        >
          {props.m.copy}
        </button>
        <span id={`${props.id}-status`} role="status" class="hint" />
      </div>
    </div>
  );
}

/** A secret shown this one time only, with the warning that it will not be shown again. */
export function SecretOnce(props: { m: Messages; id: string; label: string; value: string }) {
  return (
    <>
      <CopyValue m={props.m} id={props.id} label={props.label} value={props.value} />
      <p class="alert" role="note">
        {props.m.secretOnce}
      </p>
    </>
  );
}

/** A table with one column heading per entry, or the `empty` sentence when there are no rows. */
export function DataTable(props: {
  empty: string;
  headings: readonly string[];
  rows: readonly unknown[];
  children?: Child;
}) {
  return props.rows.length === 0 ? (
    <p>{props.empty}</p>
  ) : (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            {props.headings.map((h) => (
              <th scope="col">{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

export const Notice = ({ text }: { text?: string }) =>
  text ? (
    <p class="notice" role="status">
      {text}
    </p>
  ) : null;

export function Card(props: { title?: string; children?: Child; labelId?: string }) {
  return (
    <section class="card" aria-labelledby={props.title ? props.labelId : undefined}>
      {props.title ? <h2 id={props.labelId}>{props.title}</h2> : null}
      {props.children}
    </section>
  );
}

/** "2026-06-01 12:00 UTC" from unix seconds (or an ISO string). */
export function when(t: number | string | null | undefined, m: Messages): string {
  if (t === null || t === undefined) return m.never;
  const d = typeof t === 'number' ? new Date(t * 1000) : new Date(t);
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The end of a form: its submit button and a Cancel link back. */
export function FormActions(props: { m: Messages; submit: string; cancelHref: string; danger?: boolean }) {
  return (
    <div class="actions">
      <button type="submit" class={props.danger ? 'danger' : undefined}>
        {props.submit}
      </button>
      <a class="button secondary" href={props.cancelHref}>
        {props.m.cancel}
      </a>
    </div>
  );
}
