/** @jsxImportSource hono/jsx */
import type { ApplicationView } from '../../apps/application.store.ts';
import {
  CsrfField,
  ErrorSummary,
  type FieldErrors,
  FormActions,
  PortalLayout,
  type PortalProps,
  TextArea,
} from './layout.tsx';
import { ScopePicker } from './scope-picker.tsx';

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
