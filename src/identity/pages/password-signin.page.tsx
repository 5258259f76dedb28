/** @jsxImportSource hono/jsx */
import type { Persona } from '../personas.ts';
import { CsrfField, Layout, type PageProps } from './layout.tsx';
import { PasswordSigninForm, PersonaList } from './signin-form.tsx';

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
      <PasswordSigninForm
        labels={m}
        action={props.action}
        csrf={props.csrf}
        error={props.error}
        email={props.email}
        focusFirstEmpty
      />
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
        <PersonaList personas={props.personas} />
      </form>
    </Layout>
  );
}
