import { AppError, ErrorCode } from "../errors.js";
import { csrfFieldName, type FormState } from "./ui/forms.js";

type Body = Record<string, unknown> | undefined | null;

/** The submitted text fields (first value of repeated ones), trimmed of nothing: services validate. */
export function formValues(body: unknown): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries((body ?? {}) as Record<string, unknown>)) {
    if (key === csrfFieldName) continue;
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === "string") values[key] = first;
  }
  return values;
}

/** Every value submitted under one name (checkbox groups, multi-selects). */
export function formList(body: unknown, name: string): string[] {
  const value = ((body ?? {}) as NonNullable<Body>)[name];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return typeof value === "string" ? [value] : [];
}

/** Blank form text as undefined, so optional service fields stay unset. */
export function optional(value: string | undefined): string | undefined {
  return value?.trim() ? value : undefined;
}

/**
 * Turns a validation failure into form state: each field error next to its input (the service's
 * field path joined with dots is the input's name), other messages above the form. Anything that
 * is not a validation failure is rethrown for the error page.
 */
export function stateFromError(error: unknown, values: Record<string, string>): FormState {
  if (
    error instanceof AppError &&
    (error.code === ErrorCode.BAD_USER_INPUT || error.code === ErrorCode.CONFLICT)
  ) {
    const errors: Record<string, string> = {};
    for (const fieldError of error.details.fieldErrors ?? []) {
      // Services validate their own input object; a leading "input" segment is not part of the form name.
      const path = fieldError.field[0] === "input" ? fieldError.field.slice(1) : fieldError.field;
      const name = path.join(".");
      errors[name] ??= capitalize(fieldError.message);
    }
    const hasFieldErrors = Object.keys(errors).length > 0;
    return {
      values,
      errors,
      formError: hasFieldErrors ? "Please correct the marked fields." : error.message,
    };
  }
  throw error;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
