/** @jsxImportSource hono/jsx */
import { type FieldErrors, type PortalProps, TextField } from './layout.tsx';

export interface PasswordFormProps extends PortalProps {
  errors?: FieldErrors;
  name?: string;
}

export function NewPasswordFields(props: { m: PortalProps['m']; errors?: FieldErrors; label?: string }) {
  return (
    <>
      <TextField
        id="password"
        label={props.label ?? props.m.password}
        type="password"
        hint={props.m.passwordHint}
        autocomplete="new-password"
        required
        errors={props.errors}
      />
      <TextField
        id="confirm"
        label={props.m.confirmPassword}
        type="password"
        autocomplete="new-password"
        required
        errors={props.errors}
      />
    </>
  );
}

/** The optional name and the new password twice: what signing up and accepting an invitation both ask. */
export function NameAndPasswordFields(props: { m: PortalProps['m']; errors?: FieldErrors; name?: string }) {
  return (
    <>
      <TextField
        id="name"
        label={`${props.m.name} ${props.m.optional}`}
        autocomplete="name"
        value={props.name}
        errors={props.errors}
      />
      <NewPasswordFields m={props.m} errors={props.errors} />
    </>
  );
}
