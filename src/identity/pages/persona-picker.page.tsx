/** @jsxImportSource hono/jsx */
import type { Persona } from '../personas.ts';
import { CsrfField, Layout } from './layout.tsx';
import { PersonaList, type SigninProps } from './signin-form.tsx';

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
