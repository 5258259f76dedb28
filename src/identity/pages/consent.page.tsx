/** @jsxImportSource hono/jsx */
import { CsrfField, Layout, type PageProps } from './layout.tsx';

interface ConsentProps extends PageProps {
  action: string;
  applicationName: string;
  /** The callback of this request: its host tells the person where their data goes. */
  redirectUri: string;
  /** The application's links, when it registered them. */
  policyUri: string | null;
  tosUri: string | null;
  purpose: string;
  scopes: string[];
  personName: string;
}

/**
 * The application's name and the host it returns to, its purpose and each scope in plain words, its
 * privacy policy and terms when registered; Allow or Deny.
 */
export function ConsentPage(props: ConsentProps) {
  const { m } = props;
  return (
    <Layout {...props} title={m.consentTitle}>
      <h1>{m.consentWants(props.applicationName)}</h1>
      <p class="muted">{m.consentReturnsTo(new URL(props.redirectUri).host)}</p>
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
      <ConsentLinks {...props} />
      <footer>{m.consentFooter}</footer>
    </Layout>
  );
}

/** Links to pages of the application: opened apart, without the consent page as opener or referrer. */
function ConsentLinks(props: ConsentProps) {
  const { m } = props;
  const links = [
    [props.policyUri, m.consentPrivacyPolicy],
    [props.tosUri, m.consentTerms],
  ].filter((l): l is [string, string] => !!l[0]);
  if (!links.length) return null;
  return (
    <ul>
      {links.map(([href, label]) => (
        <li>
          <a href={href} target="_blank" rel="noopener noreferrer">
            {label} <span class="muted">{m.consentOpensNewWindow}</span>
          </a>
        </li>
      ))}
    </ul>
  );
}
