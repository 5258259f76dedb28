/** @jsxImportSource hono/jsx */
import { SIGNING_ALGS } from '../../keys/signing-algs.ts';
import { ASSURANCE_LEVELS } from '../../persons/assurance.ts';
import type { Env } from '../env.ts';
import {
  CsrfField,
  ErrorSummary,
  FieldError,
  type FieldErrors,
  FormActions,
  PortalLayout,
  type PortalProps,
  TextArea,
  TextField,
} from './layout.tsx';
import { ScopePicker } from './scope-picker.tsx';

const DOCUMENT_TYPES = ['passport', 'id_card', 'driving_licence', 'residence_permit'];

export interface AppFormValues {
  name: string;
  type: 'confidential' | 'public';
  redirectUris: string;
  webOrigins: string;
  policyUri: string;
  tosUri: string;
  postLogoutRedirectUris: string;
  scopes: string[];
  documentTypes: string[];
  documentCountries: string;
  minimumAcr: string;
  idTokenAlg: string;
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
          <TextArea
            id="web_origins"
            label={`${m.webOrigins} ${m.optional}`}
            hint={m.webOriginsHint}
            value={values.webOrigins}
            errors={errors}
          />
          <TextArea
            id="post_logout_redirect_uris"
            label={`${m.postLogoutRedirectUris} ${m.optional}`}
            hint={m.postLogoutRedirectUrisHint}
            value={values.postLogoutRedirectUris}
            errors={errors}
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
          <fieldset id="minimum_acr" tabindex={-1}>
            <legend>{m.minimumAcr}</legend>
            <p class="hint">{m.minimumAcrHint}</p>
            <FieldError id="minimum_acr" errors={errors} />
            {ASSURANCE_LEVELS.map((level) => (
              <div class="check">
                <input
                  type="radio"
                  id={`minimum_acr-${level}`}
                  name="minimum_acr"
                  value={level}
                  checked={values.minimumAcr === level}
                />
                <label for={`minimum_acr-${level}`}>{m.acrNames[level]}</label>
              </div>
            ))}
          </fieldset>
          <label for="id_token_alg">{m.idTokenAlg}</label>
          <p class="hint">{m.idTokenAlgHint}</p>
          <FieldError id="id_token_alg" errors={errors} />
          <select id="id_token_alg" name="id_token_alg">
            {SIGNING_ALGS.map((alg) => (
              <option value={alg} selected={values.idTokenAlg === alg}>
                {m.idTokenAlgNames[alg]}
              </option>
            ))}
          </select>
          <TextField
            id="policy_uri"
            type="url"
            label={`${m.policyUri} ${m.optional}`}
            hint={m.linkHint}
            value={values.policyUri}
            errors={errors}
          />
          <TextField
            id="tos_uri"
            type="url"
            label={`${m.tosUri} ${m.optional}`}
            hint={m.linkHint}
            value={values.tosUri}
            errors={errors}
          />
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
