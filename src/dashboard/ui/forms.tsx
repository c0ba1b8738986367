import type { ComponentChildren } from "preact";

/** What a form shows: the submitted values (kept on error) and one message per field name. */
export interface FormState {
  values: Record<string, string>;
  errors: Record<string, string>;
  /** A message about the form as a whole (e.g. wrong credentials). */
  formError?: string;
}

/** An empty form, optionally prefilled. */
export function formState(values: Record<string, string> = {}): FormState {
  return { values, errors: {} };
}

/** The name of the hidden field that carries the CSRF token. */
export const csrfFieldName = "_csrf";

/** A POST form carrying the CSRF token; every state-changing form of the dashboard is one. */
export function Form(props: {
  action: string;
  csrf: string;
  label?: string;
  class?: string;
  /** Asks for confirmation before submitting (progressive enhancement, see dashboard.js). */
  confirm?: string;
  /** Names the page script that submits it without a reload (it still posts normally without script). */
  enhance?: string;
  children: ComponentChildren;
}) {
  return (
    <form
      method="post"
      action={props.action}
      class={props.class ?? "form"}
      aria-label={props.label}
      data-confirm={props.confirm}
      data-enhance={props.enhance}
      noValidate
    >
      <input type="hidden" name={csrfFieldName} value={props.csrf} />
      {props.children}
    </form>
  );
}

/** The whole-form error, shown above the fields. */
export function FormError(props: { state: FormState }) {
  if (!props.state.formError) return null;
  return (
    <div class="notice notice-error" role="alert">
      {props.state.formError}
    </div>
  );
}

export interface FieldProps {
  name: string;
  label: string;
  state: FormState;
  /** Makes element ids unique when two forms on a page have a field of the same name. */
  idPrefix?: string;
  hint?: string;
  required?: boolean;
  /** The "(optional)" mark in the page's language (the event site's pages are translated). */
  optionalLabel?: string;
}

/** The ids of a field's hint and error (its aria-describedby), for groups built outside this file. */
export function describedBy(props: FieldProps): string | undefined {
  const ids = [
    props.hint ? `${fieldId(props.name, props.idPrefix)}-hint` : "",
    props.state.errors[props.name] ? `${fieldId(props.name, props.idPrefix)}-error` : "",
  ];
  return ids.filter(Boolean).join(" ") || undefined;
}

/** The element id of a field, derived from its (possibly dotted) input name. */
export function fieldId(name: string, prefix = "f"): string {
  return `${prefix}-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;
}

// API field names that service messages mention ("must not be before startsAt"), in the words the
// forms label them with.
const fieldWords: Record<string, string> = {
  startsAt: "Starts",
  endsAt: "Ends",
  salesStartAt: "Sales start",
  salesEndAt: "Sales end",
};

/**
 * A field's error as a whole sentence with its label: the services describe the field ("Must not
 * be before startsAt"), the form says which one ("Ends must not be before Starts.").
 */
function fieldSentence(label: string, message: string): string {
  const words = message.replace(
    /\b(startsAt|endsAt|salesStartAt|salesEndAt)\b/g,
    (name) => fieldWords[name] ?? name,
  );
  const sentence = /^(Must|Is|Are|Has|Cannot)\b/.test(words)
    ? `${label} ${words.charAt(0).toLowerCase()}${words.slice(1)}`
    : words;
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** What stands under a field: its hint and its error, with the ids `describedBy` names. */
export function FieldNotes(props: { id: string; label: string; hint?: string; error?: string }) {
  return (
    <>
      {props.hint ? (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {props.error ? (
        <p class="field-error" id={`${props.id}-error`}>
          {fieldSentence(props.label, props.error)}
        </p>
      ) : null}
    </>
  );
}

function FieldFrame(props: FieldProps & { children: ComponentChildren }) {
  const error = props.state.errors[props.name];
  const id = fieldId(props.name, props.idPrefix);
  return (
    <div class={error ? "field field-invalid" : "field"}>
      <label for={id}>
        {props.label}
        {props.required ? null : <span class="optional"> {props.optionalLabel ?? "(optional)"}</span>}
      </label>
      {props.children}
      <FieldNotes id={id} label={props.label} hint={props.hint} error={error} />
    </div>
  );
}

/** A labelled text-like input with its hint and server-side error. */
export function TextField(
  props: FieldProps & {
    type?: "text" | "email" | "password" | "url" | "number" | "date" | "datetime-local" | "search";
    autocomplete?: string;
    min?: string;
    step?: string;
  },
) {
  const keep = props.type !== "password";
  return (
    <FieldFrame {...props}>
      <input
        id={fieldId(props.name, props.idPrefix)}
        name={props.name}
        // Preact types `type` as a union tied to `role`; every value here is a textbox-like input.
        type={(props.type ?? "text") as "text"}
        value={keep ? (props.state.values[props.name] ?? "") : ""}
        required={props.required}
        autoComplete={props.autocomplete}
        min={props.min}
        step={props.step}
        aria-invalid={props.state.errors[props.name] ? "true" : undefined}
        aria-describedby={describedBy(props)}
      />
    </FieldFrame>
  );
}

/** What an email or password field may be told; the rest is the same on every form. */
type PresetFieldProps = Partial<Pick<FieldProps, "name" | "label" | "hint" | "idPrefix">> & {
  state: FormState;
};

/**
 * A required email input, named `email` unless told. `autocomplete` is "email" for the person's own
 * address and "username" on the log-in form; an address of someone else wants a plain TextField.
 */
export function EmailField(props: PresetFieldProps & { autocomplete?: "email" | "username" }) {
  return <TextField name="email" label="Email" type="email" autocomplete="email" required {...props} />;
}

/**
 * A required password input, named `password` unless told: the account's current password, or with
 * `choose` a new one (the browser may suggest one, and the hint states the rule it must meet).
 */
export function PasswordField(props: PresetFieldProps & { choose?: boolean }) {
  const { choose, ...field } = props;
  return (
    <TextField
      name="password"
      label="Password"
      type="password"
      autocomplete={choose ? "new-password" : "current-password"}
      hint={choose ? "At least 10 characters." : undefined}
      required
      {...field}
    />
  );
}

/** A labelled multi-line text input. */
export function TextAreaField(props: FieldProps & { rows?: number }) {
  return (
    <FieldFrame {...props}>
      <textarea
        id={fieldId(props.name, props.idPrefix)}
        name={props.name}
        rows={props.rows ?? 4}
        aria-invalid={props.state.errors[props.name] ? "true" : undefined}
        aria-describedby={describedBy(props)}
      >
        {props.state.values[props.name] ?? ""}
      </textarea>
    </FieldFrame>
  );
}

/** An option of a select: its submitted value and its visible label. */
export interface Option {
  value: string;
  label: string;
}

/** A labelled single select. */
/** A select's options, the one whose value is `selected` marked as chosen. */
export function Options(props: { options: readonly Option[]; selected: string | undefined }) {
  return (
    <>
      {props.options.map((o) => (
        <option value={o.value} selected={o.value === props.selected}>
          {o.label}
        </option>
      ))}
    </>
  );
}

export function SelectField(props: FieldProps & { options: readonly Option[]; placeholder?: string }) {
  const current = props.state.values[props.name] ?? "";
  return (
    <FieldFrame {...props}>
      <select
        id={fieldId(props.name, props.idPrefix)}
        name={props.name}
        aria-invalid={props.state.errors[props.name] ? "true" : undefined}
        aria-describedby={describedBy(props)}
      >
        {props.placeholder !== undefined ? <option value="">{props.placeholder}</option> : null}
        <Options options={props.options} selected={current} />
      </select>
    </FieldFrame>
  );
}

/** A group of checkboxes sharing one name; the submitted value is the list of checked values. */
export function CheckboxGroup(
  props: FieldProps & { options: readonly (Option & { description?: string })[]; checked: readonly string[] },
) {
  const error = props.state.errors[props.name];
  return (
    <fieldset class={error ? "field field-invalid" : "field"} aria-describedby={describedBy(props)}>
      <legend>{props.label}</legend>
      {props.options.map((o) => {
        const id = `${fieldId(props.name, props.idPrefix)}-${fieldId(o.value)}`;
        return (
          <div class="checkbox">
            <input
              type="checkbox"
              id={id}
              name={props.name}
              value={o.value}
              checked={props.checked.includes(o.value)}
            />
            <label for={id}>
              <span class="checkbox-label">{o.label}</span>
              {o.description ? <span class="hint">{o.description}</span> : null}
            </label>
          </div>
        );
      })}
      <FieldNotes
        id={fieldId(props.name, props.idPrefix)}
        label={props.label}
        hint={props.hint}
        error={error}
      />
    </fieldset>
  );
}

/** The primary (or a secondary/danger) button of a form. */
export function SubmitButton(props: {
  children: ComponentChildren;
  variant?: "primary" | "secondary" | "danger";
  name?: string;
  value?: string;
}) {
  return (
    <button
      type="submit"
      class={`button button-${props.variant ?? "primary"}`}
      name={props.name}
      value={props.value}
    >
      {props.children}
    </button>
  );
}

/**
 * A form that creates or saves one thing: the form's error, its inputs, then the submit button
 * beside a Cancel link back to `cancel`, the page the form was opened from.
 */
export function EditForm(props: {
  action: string;
  csrf: string;
  label: string;
  state: FormState;
  submit: string;
  cancel: string;
  enhance?: string;
  children: ComponentChildren;
}) {
  return (
    <Form action={props.action} csrf={props.csrf} label={props.label} enhance={props.enhance}>
      <FormError state={props.state} />
      {props.children}
      <div class="form-actions">
        <SubmitButton>{props.submit}</SubmitButton>
        <a class="button button-secondary" href={props.cancel}>
          Cancel
        </a>
      </div>
    </Form>
  );
}

/**
 * A form that acts only with the signed-in person's current password (changing the email or the
 * password, deleting the account): a stolen session must not be enough. Its own fields come first,
 * then the password, then the button; `idPrefix` keeps several such forms on one page apart.
 */
export function PasswordConfirmedForm(props: {
  action: string;
  csrf: string;
  label: string;
  idPrefix: string;
  state: FormState;
  submit: string;
  variant?: "primary" | "danger";
  confirm?: string;
  children?: ComponentChildren;
}) {
  return (
    <Form action={props.action} csrf={props.csrf} label={props.label} confirm={props.confirm}>
      <FormError state={props.state} />
      {props.children}
      <PasswordField
        name="currentPassword"
        label="Current password"
        idPrefix={props.idPrefix}
        state={props.state}
      />
      <SubmitButton variant={props.variant}>{props.submit}</SubmitButton>
    </Form>
  );
}
