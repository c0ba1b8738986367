import { z } from "zod";
import type { CompanyField } from "../../db/schema.js";
import type { EventPageSettingsRow } from "./event-page.repository.js";

// The organizer's switches for the public page (shown, registration open, the company field): their
// shape, defaults and input, read by the page, the dashboard's settings form and the API.

/** The organizer's switches for the public page of a project. */
export interface EventPageSettings {
  /** Whether /e/<id> is shown (only ever for a PUBLISHED project). */
  pageEnabled: boolean;
  /** Whether visitors may register on the page. */
  registrationOpen: boolean;
  /** Whether the registration form asks for the company, and whether it must be given. */
  companyField: CompanyField;
}

/** What a project without saved settings has: the page on, registration open, company optional. */
const defaultEventPageSettings: EventPageSettings = {
  pageEnabled: true,
  registrationOpen: true,
  companyField: "OPTIONAL",
};

/** The company field's settings, for forms and inputs. */
export const companyFields = ["OPTIONAL", "REQUIRED", "HIDDEN"] as const satisfies readonly CompanyField[];

export const settingsInput = z.object({
  pageEnabled: z.boolean(),
  registrationOpen: z.boolean(),
  companyField: z.enum(companyFields),
});

/** The settings of a stored row, or the defaults for a project that never saved any. */
export function presentSettings(row: EventPageSettingsRow | undefined): EventPageSettings {
  if (!row) return { ...defaultEventPageSettings };
  return {
    pageEnabled: Number(row.page_enabled) === 1,
    registrationOpen: Number(row.registration_open) === 1,
    companyField: row.company_field,
  };
}
