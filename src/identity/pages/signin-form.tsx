/** @jsxImportSource hono/jsx */
import type { Persona } from '../personas.ts';
import { CsrfField, type PageProps } from './layout.tsx';

/** What the identity sign-in pages (password and personas) get from the router. */
export interface SigninProps extends PageProps {
  action: string;
  applicationName: string;
  error?: string;
  email?: string;
}

/** The visible text of the email/password form; each page passes its own catalogue's words. */
export interface SigninFormLabels {
  email: string;
  password: string;
  signIn: string;
}

/**
 * The email/password sign-in form with its error, shared by the identity sign-in, the account page and the
 * developer portal. `focusFirstEmpty` puts the focus on the email field, or on the password when the email is
 * already known.
 */
export function PasswordSigninForm(props: {
  labels: SigninFormLabels;
  action: string;
  csrf: string;
  error?: string;
  email?: string;
  focusFirstEmpty?: boolean;
}) {
  const { labels } = props;
  const focus = props.focusFirstEmpty;
  return (
    <>
      {props.error ? (
        <p class="alert" role="alert" id="signin-error">
          {props.error}
        </p>
      ) : null}
      <form method="post" action={props.action}>
        <CsrfField token={props.csrf} />
        <label for="email">{labels.email}</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          autofocus={focus ? !props.email : undefined}
          value={props.email ?? ''}
          aria-describedby={props.error ? 'signin-error' : undefined}
        />
        <label for="password">{labels.password}</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          autofocus={focus ? !!props.email : undefined}
        />
        <button type="submit">{labels.signIn}</button>
      </form>
    </>
  );
}

/** The sandbox personas, each a submit button of the surrounding form. */
export function PersonaList({ personas }: { personas: readonly Persona[] }) {
  return (
    <ul class="personas">
      {personas.map((p) => (
        <li class="persona">
          {p.photo ? <img src={p.photo} alt="" /> : <span class="avatar" aria-hidden="true" />}
          <div>
            <button type="submit" name="persona" value={p.key} aria-describedby={`persona-${p.key}`}>
              {p.name}
            </button>
            <p id={`persona-${p.key}`}>{p.summary}</p>
          </div>
        </li>
      ))}
    </ul>
  );
}
