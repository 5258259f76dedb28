/** @jsxImportSource hono/jsx */
import { CsrfField, Layout, type PageProps } from './layout.tsx';

interface ConsentProps extends PageProps {
  action: string;
  applicationName: string;
  purpose: string;
  scopes: string[];
  personName: string;
}

/** The application's name, its purpose and each scope in plain words; Allow or Deny. */
export function ConsentPage(props: ConsentProps) {
  const { m } = props;
  return (
    <Layout {...props} title={m.consentTitle}>
      <h1>{m.consentWants(props.applicationName)}</h1>
      <p class="muted">{m.consentSignedInAs(props.personName)}</p>
      <h2 id="purpose-heading">{m.consentPurpose}</h2>
      <p class="purpose">{props.purpose || m.consentNoPurpose}</p>
      <h2 id="scopes-heading">{m.consentScopes}</h2>
      <ul class="scopes" aria-labelledby="scopes-heading">
        {props.scopes.map((s) => (
          <li>{m.scopes[s] ?? s}</li>
        ))}
      </ul>
      <form method="post" action={props.action}>
        <CsrfField token={props.csrf} />
        <div class="row">
          <button type="submit" name="decision" value="deny" class="danger">
            {m.deny}
          </button>
          <button type="submit" name="decision" value="allow">
            {m.allow}
          </button>
        </div>
      </form>
      <footer>{m.consentFooter}</footer>
    </Layout>
  );
}
