/** @jsxImportSource hono/jsx */
import { SCOPE_CATALOGUE } from '../../capabilities/scope-catalogue.ts';
import type { Env } from '../env.ts';
import { FieldError, type FieldErrors, Hint, type PortalProps } from './layout.tsx';

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
