import { badInput, isUserError } from "../errors.js";
import { fromLocalInput } from "./time.js";
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
  if (isUserError(error)) {
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

/**
 * Converts form text to the types services take (times in a zone, whole numbers), collecting every
 * conversion problem under its input name; `done()` throws them together as BAD_USER_INPUT.
 */
export class FormReader {
  private readonly problems: { field: string[]; message: string }[] = [];

  constructor(
    readonly values: Record<string, string>,
    private readonly timeZone: string,
  ) {}

  /** Text as submitted ("" when absent); the service validates it. */
  text(name: string): string {
    return this.values[name] ?? "";
  }

  /** A `datetime-local` value in the zone as UTC; null when blank (a problem when required). */
  time(name: string, required: boolean): string | null {
    const raw = this.text(name).trim();
    if (!raw) {
      if (required) this.problems.push({ field: [name], message: "must not be empty" });
      return null;
    }
    const iso = fromLocalInput(raw, this.timeZone);
    if (!iso)
      this.problems.push({ field: [name], message: "must be a date and time, e.g. 2026-05-04 09:00" });
    return iso ?? null;
  }

  /** A whole number; null when blank (a problem when required). */
  integer(name: string, required: boolean): number | null {
    const raw = this.text(name).trim();
    if (!raw) {
      if (required) this.problems.push({ field: [name], message: "must not be empty" });
      return null;
    }
    if (!/^-?\d{1,12}$/.test(raw)) {
      this.problems.push({ field: [name], message: "must be a whole number" });
      return null;
    }
    return Number(raw);
  }

  /** Records a problem found by the caller (e.g. an amount that is not money). */
  problem(name: string, message: string): void {
    this.problems.push({ field: [name], message });
  }

  /** Throws the collected problems, if any. */
  done(): void {
    if (this.problems.length > 0) throw badInput(this.problems);
  }
}

/** "19" or "7.5" (percent, up to two decimals) → basis points; NaN for anything else, which the service refuses. */
export function percentToBasisPoints(text: string): number {
  if (text === "") return 0;
  const match = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(text);
  return match ? Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0")) : Number.NaN;
}
