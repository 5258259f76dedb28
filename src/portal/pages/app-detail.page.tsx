/** @jsxImportSource hono/jsx */
import type { ApplicationView, EnvironmentView } from '../../apps/application.store.ts';
import { type ReviewChanges, SETTING_KEYS } from '../../apps/production-change.ts';
import type { Env } from '../env.ts';
import { Card, CopyValue, CsrfField, Notice, PortalLayout, type PortalProps, when } from './layout.tsx';

export interface IntegrationValues {
  issuer: string;
  discoveryUrl: string;
  authorizationUrl?: string;
  codeVerifier?: string;
}

function EnvSwitch(props: PortalProps & { app: ApplicationView; environment: Env }) {
  const { m, base } = props;
  return (
    <nav aria-label={m.environment}>
      <ul>
        {props.app.environments.map((e) => (
          <li>
            <a
              href={`${base}/apps/${props.app.applicationId}?env=${e.environment}`}
              aria-current={e.environment === props.environment ? 'page' : undefined}
            >
              {m.envNames[e.environment]}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** One application: integration values, credentials, settings, production review, webhooks. */
export function AppPage(
  props: PortalProps & {
    app: ApplicationView;
    env: EnvironmentView;
    integration: IntegrationValues;
    notice?: string;
    /** What the pending review would change in production, when production exists. */
    pendingChanges?: ReviewChanges;
    /** Until when the production secret issued at approval can be revealed once. */
    revealUntil?: number;
  },
) {
  const { m, base, app, env, integration } = props;
  const appBase = `${base}/apps/${app.applicationId}`;
  const review = app.latestReview;
  const production = app.environments.find((e) => e.environment === 'production');
  return (
    <PortalLayout {...props} title={app.name} section="apps">
      <section class="card">
        <h1>{app.name}</h1>
        <Notice text={props.notice} />
        <p class="muted">
          {app.type === 'confidential' ? m.typeConfidential : m.typePublic} · <code>{app.applicationId}</code>
        </p>
        <EnvSwitch {...props} app={app} environment={env.environment} />
        <div class="actions">
          <a class="button secondary" href={`${appBase}/edit?env=${env.environment}`}>
            {m.editApp}
          </a>
          <a class="button secondary" href={`${appBase}/${env.environment}/webhooks`}>
            {m.webhooks}
          </a>
          <a class="button secondary" href={`${appBase}/${env.environment}/webhooks/history`}>
            {m.deliveryHistory}
          </a>
          {env.environment === 'sandbox' ? (
            <a class="button secondary" href={`${appBase}/sandbox/consents`}>
              {m.sandboxConsents}
            </a>
          ) : null}
        </div>
      </section>

      <Card title={`${m.integrationTitle} (${m.envNames[env.environment]})`} labelId="integration">
        <div class="stack">
          <CopyValue m={m} id="issuer" label={m.issuer} value={integration.issuer} />
          <CopyValue m={m} id="discovery" label={m.discoveryUrl} value={integration.discoveryUrl} />
          <CopyValue m={m} id="client-id" label={m.clientId} value={env.clientId} />
        </div>
        <h3>{m.redirectUris}</h3>
        <ul>
          {env.redirectUris.map((u) => (
            <li>
              <code>{u}</code>
            </li>
          ))}
        </ul>
        {env.webOrigins.length ? (
          <>
            <h3>{m.webOrigins}</h3>
            <ul>
              {env.webOrigins.map((o) => (
                <li>
                  <code>{o}</code>
                </li>
              ))}
            </ul>
          </>
        ) : null}
        {env.postLogoutRedirectUris.length ? (
          <>
            <h3>{m.postLogoutRedirectUris}</h3>
            <ul>
              {env.postLogoutRedirectUris.map((u) => (
                <li>
                  <code>{u}</code>
                </li>
              ))}
            </ul>
          </>
        ) : null}
        {app.policyUri || app.tosUri ? (
          <dl>
            {app.policyUri ? (
              <>
                <dt>{m.policyUri}</dt>
                <dd>
                  <code>{app.policyUri}</code>
                </dd>
              </>
            ) : null}
            {app.tosUri ? (
              <>
                <dt>{m.tosUri}</dt>
                <dd>
                  <code>{app.tosUri}</code>
                </dd>
              </>
            ) : null}
          </dl>
        ) : null}
        <h3>{m.scopes}</h3>
        <p>
          {env.scopes.map((s, i) => (
            <>
              {i ? ' ' : ''}
              <code>{s}</code>
            </>
          ))}
        </p>
        {integration.authorizationUrl ? (
          <>
            <CopyValue
              m={m}
              id="authorization-url"
              label={m.authorizationUrl}
              value={integration.authorizationUrl}
            />
            <p class="hint">{m.authorizationUrlHint}</p>
            <CopyValue
              m={m}
              id="code-verifier"
              label={m.codeVerifier}
              value={integration.codeVerifier ?? ''}
            />
          </>
        ) : (
          <p>{m.noRedirectUri}</p>
        )}
      </Card>

      <Card title={m.clientSecret} labelId="credentials">
        {app.type === 'public' ? (
          <p>{m.noSecretPublic}</p>
        ) : (
          <>
            <p>{m.secretActive(env.activeSecrets)}</p>
            <div class="actions">
              <a class="button secondary" href={`${appBase}/secret/rotate?env=${env.environment}`}>
                {m.rotateSecret}
              </a>
            </div>
          </>
        )}
        <h3>{m.documentPolicy}</h3>
        <dl>
          <dt>{m.documentTypes}</dt>
          <dd>
            {env.documentTypes.length
              ? env.documentTypes.map((t) => m.documentTypeNames[t]).join(', ')
              : m.none}
          </dd>
          <dt>{m.documentCountries}</dt>
          <dd>
            {env.documentCountries.length > 200 ? m.allCountries : env.documentCountries.join(' ') || m.none}
          </dd>
          <dt>{m.minimumAcr}</dt>
          <dd>{m.acrNames[env.minimumAcr]}</dd>
          <dt>{m.idTokenAlg}</dt>
          <dd>{m.idTokenAlgNames[env.idTokenSignedResponseAlg]}</dd>
        </dl>
      </Card>

      <Card title={m.productionTitle} labelId="production">
        {review ? (
          <div id="review-status">
            <p>
              <strong>{m.reviewStatus}: </strong>
              <span
                class={`pill ${review.status === 'approved' ? 'ok' : review.status === 'rejected' ? 'bad' : 'wait'}`}
              >
                {m.reviewStatusNames[review.status]}
              </span>
            </p>
            <p>
              {review.status === 'pending'
                ? m.reviewPending
                : review.status === 'rejected'
                  ? m.reviewRejected
                  : m.reviewApproved}
            </p>
            <dl>
              <dt>{m.requestedAt}</dt>
              <dd>{when(review.createdAt, m)}</dd>
              <dt>{m.reviewScopes}</dt>
              <dd>{review.scopes.join(' ')}</dd>
              {props.pendingChanges ? <PendingChanges m={m} changes={props.pendingChanges} /> : null}
              {review.decidedAt ? (
                <>
                  <dt>{m.decidedAt}</dt>
                  <dd>{when(review.decidedAt, m)}</dd>
                </>
              ) : null}
              {review.decisionReason ? (
                <>
                  <dt>{m.reviewReason}</dt>
                  <dd>{review.decisionReason}</dd>
                </>
              ) : null}
            </dl>
          </div>
        ) : null}
        {production ? null : <p>{m.productionNone}</p>}
        {props.revealUntil && production ? (
          <form method="post" action={`${appBase}/production-secret`} id="reveal-secret">
            <CsrfField token={props.csrf} />
            <p>{m.revealSecretHint(when(props.revealUntil, m))}</p>
            <button type="submit">{m.revealSecret}</button>
          </form>
        ) : null}
        {production && env.environment !== 'production' ? (
          <p>
            <a href={`${appBase}?env=production`}>{m.productionCreds}</a>
          </p>
        ) : null}
        {review?.status === 'pending' ? null : (
          <div class="actions">
            <a class="button" href={`${appBase}/review`}>
              {review ? m.requestAgain : m.requestReview}
            </a>
          </div>
        )}
      </Card>

      <Card title={m.deleteApp} labelId="danger">
        <div class="actions">
          <a class="button secondary" href={`${appBase}/delete`}>
            {m.deleteApp}
          </a>
        </div>
      </Card>
    </PortalLayout>
  );
}

/** Added and removed entries of each production setting the pending review changes. */
function PendingChanges(props: { m: PortalProps['m']; changes: ReviewChanges }) {
  const { m } = props;
  return (
    <>
      {SETTING_KEYS.flatMap((key) => {
        const { added, removed } = props.changes[key];
        if (!added.length && !removed.length) return [];
        return [
          <dt>{m.pendingChange[key]}</dt>,
          <dd class="pending-change">
            {added.map((x) => (
              <span class="added">+{x} </span>
            ))}
            {removed.map((x) => (
              <span class="removed">-{x} </span>
            ))}
          </dd>,
        ];
      })}
    </>
  );
}
