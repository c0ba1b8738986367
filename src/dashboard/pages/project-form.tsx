import type { Project, UpdateProjectInput } from "../../modules/projects/projects.service.js";
import { isTimeZone } from "../../shared/validation.js";
import { optional } from "../form-data.js";
import { readLocalTimes, timeZoneOptions, toLocalInput } from "../time.js";
import { type FormState, SelectField, TextAreaField, TextField } from "../ui/forms.js";

const knownZone = (value: string | undefined): string => (value && isTimeZone(value) ? value : "UTC");

/** The form's values for an existing project (times shown in its own zone). */
export function projectFormValues(project: Project): Record<string, string> {
  return {
    name: project.name,
    description: project.description ?? "",
    timezone: project.timezone,
    startsAt: toLocalInput(project.startsAt, project.timezone),
    endsAt: toLocalInput(project.endsAt, project.timezone),
    "venue.name": project.venue.name ?? "",
    "venue.address": project.venue.address ?? "",
    "venue.city": project.venue.city ?? "",
    "venue.country": project.venue.country ?? "",
    website: project.website ?? "",
  };
}

/** Reads the project form into the service's input; the dates are wall-clock times in the chosen zone. */
export function projectInputFromForm(values: Record<string, string>): UpdateProjectInput {
  const zone = knownZone(values.timezone);
  const times = readLocalTimes(values, ["startsAt", "endsAt"], zone);
  return {
    name: values.name ?? "",
    description: values.description ?? "",
    timezone: values.timezone ?? "",
    startsAt: times.startsAt,
    endsAt: times.endsAt,
    venue: {
      name: values["venue.name"] ?? "",
      address: values["venue.address"] ?? "",
      city: values["venue.city"] ?? "",
      country: optional(values["venue.country"]) ?? null,
    },
    website: optional(values.website) ?? null,
  };
}

/** The fields shared by "New project" and the General settings tab. */
export function ProjectFields(props: { state: FormState }) {
  const { state } = props;
  return (
    <>
      <TextField name="name" label="Event name" state={state} required />
      <TextAreaField name="description" label="Description" state={state} rows={3} />
      <SelectField
        name="timezone"
        label="Time zone"
        state={state}
        required
        options={timeZoneOptions()}
        hint="Dates and session times are shown in this zone."
      />
      <div class="field-row">
        <TextField name="startsAt" label="Starts" type="datetime-local" state={state} />
        <TextField name="endsAt" label="Ends" type="datetime-local" state={state} />
      </div>
      <fieldset class="fieldset">
        <legend>Venue</legend>
        <TextField name="venue.name" label="Venue name" state={state} />
        <TextField name="venue.address" label="Address" state={state} />
        <div class="field-row">
          <TextField name="venue.city" label="City" state={state} />
          <TextField name="venue.country" label="Country code" state={state} hint="Two letters, e.g. DE." />
        </div>
      </fieldset>
      <TextField name="website" label="Website" type="url" state={state} />
    </>
  );
}
