/** @jsxImportSource hono/jsx */
import type { ApplicationView, EnvironmentView } from '../../apps/application.store.ts';
import { type ReviewChanges, SETTING_KEYS } from '../../apps/production-change.ts';
import { SCOPE_CATALOGUE } from '../../capabilities/scope-catalogue.ts';
import type { Env } from '../env.ts';
import {
  Card,
  CopyValue,
  CsrfField,
  DataTable,
  ErrorSummary,
  FieldError,
  type FieldErrors,
  FormActions,
  Hint,
  Notice,
  PortalLayout,
  type PortalProps,
  SecretOnce,
  TextArea,
  TextField,
  when,
} from './layout.tsx';

const DOCUMENT_TYPES = ['passport', 'id_card', 'driving_licence', 'residence_permit'];

export function AppsListPage(props: PortalProps & { apps: ApplicationView[]; notice?: string }) {
  const { m, base } = props;
  return (
    <PortalLayout {...props} title={m.appsTitle}>
      <section class="card">
        <h1>{m.appsTitle}</h1>
        <Notice text={props.notice} />
        <div class="actions">
          <a class="button" href={`${base}/apps/new`}>
            {m.newApp}
          </a>
        </div>
        <DataTable
          empty={m.appsEmpty}
          headings={[m.appName, m.appType, m.environment, m.reviewStatus]}
          rows={props.apps}
        >
          {props.apps.map((a) => (
            <tr>
              <td>
                <a href={`${base}/apps/${a.applicationId}`}>{a.name}</a>
              </td>
              <td>{a.type === 'confidential' ? m.typeConfidential : m.typePublic}</td>
              <td>{a.environments.map((e) => m.envNames[e.environment]).join(', ')}</td>
              <td>{a.latestReview ? m.reviewStatusNames[a.latestReview.status] : m.none}</td>
            </tr>
          ))}
        </DataTable>
      </section>
    </PortalLayout>
  );
}

/** Checkboxes of the scope catalogue with each scope's description and sensitivity. */
export function ScopePicker(props: {
  m: PortalProps['m'];
  id: string;
  legend: string;
  hint?: string;
  environment: Env;
  selected: readonly string[];
  errors?: FieldErrors;
}) {
  const { m } = props;
  return (
    <fieldset
      id={props.id}
      tabindex={-1}
      aria-describedby={
        [props.hint ? `${props.id}-hint` : '', props.errors?.[props.id] ? `${props.id}-error` : '']
          .filter(Boolean)
          .join(' ') || undefined
      }
    >
      <legend>{props.legend}</legend>
      <Hint id={props.id} text={props.hint} />
      <FieldError id={props.id} errors={props.errors} />
      {SCOPE_CATALOGUE.filter((s) => s.environments.includes(props.environment)).map((s) => (
        <div class="check">
          <input
            type="checkbox"
            id={`${props.id}-${s.name}`}
            name={props.id}
            value={s.name}
            checked={props.selected.includes(s.name)}
            aria-describedby={`${props.id}-${s.name}-desc`}
          />
          <div>
            <label for={`${props.id}-${s.name}`}>
              <strong>
                <code>{s.name}</code>
              </strong>{' '}
              <span class={`pill ${s.sensitivity}`}>{m.sensitivity[s.sensitivity]}</span>
            </label>
            <span class="hint block" id={`${props.id}-${s.name}-desc`}>
              {s.description}
              {s.sensitivity === 'restricted' ? ` ${m.productionOnly}` : ''}
            </span>
          </div>
        </div>
      ))}
    </fieldset>
  );
}

export interface AppFormValues {
  name: string;
  type: 'confidential' | 'public';
  redirectUris: string;
  scopes: string[];
  documentTypes: string[];
  documentCountries: string;
  justification?: string;
  fullNumberJustification?: string;
}

/** Create (sandbox) or edit (one environment) an application. */
export function AppFormPage(
  props: PortalProps & {
    mode: 'create' | 'edit';
    environment: Env;
    action: string;
    cancelHref: string;
    values: AppFormValues;
    errors?: FieldErrors;
  },
) {
  const { m, values, errors } = props;
  const title = props.mode === 'create' ? m.createAppTitle : m.editAppTitle(m.envNames[props.environment]!);
  return (
    <PortalLayout {...props} title={title} section="apps">
      <section class="card">
        <h1>{title}</h1>
        <form method="post" action={props.action} novalidate>
          <CsrfField token={props.csrf} />
          <ErrorSummary m={m} errors={errors} />
          <TextField
            id="name"
            label={m.appName}
            hint={m.appNameHint}
            value={values.name}
            required
            errors={errors}
            maxlength={100}
          />
          {props.mode === 'create' ? (
            <fieldset id="type" tabindex={-1}>
              <legend>{m.appType}</legend>
              <FieldError id="type" errors={errors} />
              {(['confidential', 'public'] as const).map((t) => (
                <div class="check">
                  <input
                    type="radio"
                    id={`type-${t}`}
                    name="type"
                    value={t}
                    checked={values.type === t}
                    aria-describedby={`type-${t}-desc`}
                  />
                  <div>
                    <label for={`type-${t}`}>
                      <strong>{t === 'confidential' ? m.typeConfidential : m.typePublic}</strong>
                    </label>
                    <span class="hint block" id={`type-${t}-desc`}>
                      {t === 'confidential' ? m.typeConfidentialHint : m.typePublicHint}
                    </span>
                  </div>
                </div>
              ))}
            </fieldset>
          ) : null}
          <TextArea
            id="redirect_uris"
            label={m.redirectUris}
            hint={m.redirectUrisHint}
            value={values.redirectUris}
            errors={errors}
            required
          />
          <ScopePicker
            m={m}
            id="scopes"
            legend={m.scopes}
            hint={m.scopesHint}
            environment={props.environment}
            selected={values.scopes}
            errors={errors}
          />
          <fieldset id="document_types" tabindex={-1}>
            <legend>{m.documentPolicy}</legend>
            <p class="hint">{m.documentTypes}</p>
            <FieldError id="document_types" errors={errors} />
            {DOCUMENT_TYPES.map((t) => (
              <div class="check">
                <input
                  type="checkbox"
                  id={`document_types-${t}`}
                  name="document_types"
                  value={t}
                  checked={values.documentTypes.includes(t)}
                />
                <label for={`document_types-${t}`}>{m.documentTypeNames[t]}</label>
              </div>
            ))}
            <TextField
              id="document_countries"
              label={m.documentCountries}
              hint={m.documentCountriesHint}
              value={values.documentCountries}
              errors={errors}
            />
          </fieldset>
          {props.environment === 'production' ? (
            <>
              <p>{m.productionEditIntro}</p>
              <TextArea
                id="justification"
                label={`${m.justification} ${m.optional}`}
                hint={m.justificationHint}
                value={values.justification ?? ''}
                errors={errors}
              />
              <TextArea
                id="full_number_justification"
                label={m.fullNumberJustification}
                hint={m.fullNumberJustificationHint}
                value={values.fullNumberJustification ?? ''}
                errors={errors}
              />
            </>
          ) : null}
          <FormActions
            m={m}
            submit={props.mode === 'create' ? m.createApp : m.save}
            cancelHref={props.cancelHref}
          />
        </form>
      </section>
    </PortalLayout>
  );
}

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

/** A reveal of the production secret after it was revealed, rotated or expired. */
/** The one time a client secret is shown: after creation or rotation. */
export function SecretShownPage(
  props: PortalProps & {
    title: string;
    intro?: string;
    appHref: string;
    clientId: string;
    clientSecret?: string;
  },
) {
  const { m } = props;
  return (
    <PortalLayout {...props} title={props.title} section="apps">
      <section class="card">
        <h1>{props.title}</h1>
        {props.intro ? <p>{props.intro}</p> : null}
        <div class="stack">
          <CopyValue m={m} id="client-id" label={m.clientId} value={props.clientId} />
          {props.clientSecret ? (
            <SecretOnce m={m} id="client-secret" label={m.clientSecret} value={props.clientSecret} />
          ) : (
            <p>{m.noSecretPublic}</p>
          )}
        </div>
        <div class="actions">
          <a class="button" href={props.appHref}>
            {m.back}
          </a>
        </div>
      </section>
    </PortalLayout>
  );
}

export function ReviewPage(
  props: PortalProps & {
    app: ApplicationView;
    action: string;
    values: { justification: string; scopes: string[]; fullNumberJustification: string };
    errors?: FieldErrors;
  },
) {
  const { m, values, errors } = props;
  return (
    <PortalLayout {...props} title={m.reviewTitle} section="apps">
      <section class="card">
        <h1>{m.reviewTitle}</h1>
        <p class="muted">{props.app.name}</p>
        <p>{m.reviewIntro}</p>
        <form method="post" action={props.action} novalidate>
          <CsrfField token={props.csrf} />
          <ErrorSummary m={m} errors={errors} />
          <TextArea
            id="justification"
            label={m.justification}
            hint={m.justificationHint}
            value={values.justification}
            errors={errors}
            required
          />
          <ScopePicker
            m={m}
            id="scopes"
            legend={m.reviewScopes}
            environment="production"
            selected={values.scopes}
            errors={errors}
          />
          <TextArea
            id="full_number_justification"
            label={m.fullNumberJustification}
            hint={m.fullNumberJustificationHint}
            value={values.fullNumberJustification}
            errors={errors}
          />
          <FormActions
            m={m}
            submit={m.submitReview}
            cancelHref={`${props.base}/apps/${props.app.applicationId}`}
          />
        </form>
      </section>
    </PortalLayout>
  );
}
