import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { formValues } from "../dashboard/form-data.js";
import { AppError, ErrorCode } from "../errors.js";

/** The hidden fields of a registration form that prove this server rendered it, recently. */
export interface FormTicket {
  idempotencyKey: string;
  issuedAt: string;
  signature: string;
}

const maxAgeMs = 24 * 60 * 60 * 1000;
// A clock a little ahead on another process must not refuse a form it rendered.
const clockSkewMs = 5 * 60 * 1000;

/**
 * CSRF protection without cookies for anonymous visitors (docs/event-page.md). A registration form
 * carries a fresh idempotency key, the time it was rendered and an HMAC of both with the project id
 * under a server secret. A forged cross-site form cannot carry a valid signature without first
 * loading our form, and a visitor has no session for such a form to ride on anyway; the signature
 * also ties the idempotency key to one project and stops replays after a day.
 */
export function formSigner(secret: string) {
  const sign = (projectId: string, key: string, issuedAt: string) =>
    createHmac("sha256", secret).update(`event-form:${projectId}:${key}:${issuedAt}`).digest("base64url");
  return {
    /** Hidden fields for a new form of the project. */
    issue(projectId: string, now = Date.now()): FormTicket {
      const idempotencyKey = randomUUID();
      const issuedAt = String(now);
      return { idempotencyKey, issuedAt, signature: sign(projectId, idempotencyKey, issuedAt) };
    },

    /** Whether submitted hidden fields are a form this server issued for the project, under a day ago. */
    verify(projectId: string, fields: Partial<FormTicket>, now = Date.now()): fields is FormTicket {
      const { idempotencyKey, issuedAt, signature } = fields;
      if (!idempotencyKey || !issuedAt || !signature || !/^\d{1,16}$/.test(issuedAt)) return false;
      const age = now - Number(issuedAt);
      if (age > maxAgeMs || age < -clockSkewMs) return false;
      const expected = Buffer.from(sign(projectId, idempotencyKey, issuedAt));
      const given = Buffer.from(signature);
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
  };
}

export type FormSigner = ReturnType<typeof formSigner>;

/**
 * The submitted form's values when they carry a form this server issued for the project, under a
 * day ago; FORBIDDEN otherwise, naming the page (`what`) to open again.
 */
export function signedFormValues(
  signer: FormSigner,
  projectId: string,
  body: unknown,
  what: string,
): Record<string, string> & FormTicket {
  const values = formValues(body);
  if (!signer.verify(projectId, values)) {
    throw new AppError(
      ErrorCode.FORBIDDEN,
      `This form has expired or did not come from this page. Open the ${what} page again.`,
    );
  }
  return values;
}
