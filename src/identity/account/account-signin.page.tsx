/** @jsxImportSource hono/jsx */
import { CsrfField, Layout } from '../pages/layout.tsx';
import { PasswordSigninForm, PersonaList } from '../pages/signin-form.tsx';
import type { Persona } from '../personas.ts';
import type { AccountProps } from './account-props.ts';

/** Sign-in to the account page: email and password, and on a sandbox-enabled server the personas. */
export function AccountSigninPage(
  props: AccountProps & { error?: string; email?: string; personas: readonly Persona[] },
) {
  const { m, a } = props;
  return (
    <Layout {...props} title={a.signinTitle}>
      <h1>{a.signinTitle}</h1>
      <p class="muted">{a.signinIntro}</p>
      <PasswordSigninForm
        labels={m}
        action={`${props.base}/signin`}
        csrf={props.csrf}
        error={props.error}
        email={props.email}
      />
      {props.personas.length ? (
        <section aria-labelledby="sandbox-heading">
          <h2 id="sandbox-heading">{a.sandboxHeading}</h2>
          <p class="muted">{a.sandboxIntro}</p>
          <form method="post" action={`${props.base}/signin/persona`}>
            <CsrfField token={props.csrf} />
            <PersonaList personas={props.personas} />
          </form>
        </section>
      ) : null}
    </Layout>
  );
}
