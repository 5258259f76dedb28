/** @jsxImportSource hono/jsx */
import type { Persona } from '../personas.ts';
import { CsrfField, Layout, type PageProps } from './layout.tsx';

interface SigninProps extends PageProps {
  action: string;
  applicationName: string;
  error?: string;
  email?: string;
}

/** Production sign-in: email and password. */
export function PasswordSigninPage(props: SigninProps) {
  const { m } = props;
  return (
    <Layout {...props} title={m.signinTitle}>
      <h1>{m.signinTitle}</h1>
      <p class="muted">{m.signinTo(props.applicationName)}</p>
      {props.error ? (
        <p class="alert" role="alert" id="signin-error">
          {props.error}
        </p>
      ) : null}
      <form method="post" action={props.action}>
        <CsrfField token={props.csrf} />
        <label for="email">{m.email}</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          autofocus={!props.email}
          value={props.email ?? ''}
          aria-describedby={props.error ? 'signin-error' : undefined}
        />
        <label for="password">{m.password}</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          autofocus={!!props.email}
        />
        <button type="submit">{m.signIn}</button>
      </form>
    </Layout>
  );
}

/** Sandbox sign-in: pick a persona, optionally forcing how the flow ends. */
export function PersonaPickerPage(props: SigninProps & { personas: readonly Persona[] }) {
  const { m } = props;
  return (
    <Layout {...props} title={m.personaTitle}>
      <h1>{m.personaTitle}</h1>
      <p class="muted">{m.signinTo(props.applicationName)}</p>
      <p>{m.personaIntro}</p>
      <form method="post" action={props.action}>
        <CsrfField token={props.csrf} />
        <label for="outcome">{m.forcedOutcome}</label>
        <select id="outcome" name="outcome" aria-describedby="outcome-help">
          <option value="none">{m.outcomeNone}</option>
          <option value="deny">{m.outcomeDeny}</option>
          <option value="fail_liveness">{m.outcomeFailLiveness}</option>
          <option value="fail_match">{m.outcomeFailMatch}</option>
        </select>
        <p class="muted" id="outcome-help">
          {m.forcedOutcomeHelp}
        </p>
        <ul class="personas">
          {props.personas.map((p) => (
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
      </form>
    </Layout>
  );
}
