import type { QuestionKind } from "../../db/schema.js";
import { hasOptions, type Question, questionKinds } from "../../modules/questions/questions.model.js";
import type { TicketType } from "../../modules/tickets/tickets.service.js";
import { formList } from "../form-data.js";
import { CheckboxGroup, type FormState, SelectField, TextAreaField, TextField } from "../ui/forms.js";

// A registration question as a form: the fields "Add question" and its edit page share, and how
// their values become the service's input.

/** Each kind in the organizer's words. */
export const kindLabels: Record<QuestionKind, string> = {
  SHORT_TEXT: "Short text",
  LONG_TEXT: "Long text",
  ONE_CHOICE: "One choice",
  SEVERAL_CHOICES: "Several choices",
  YES_NO: "Yes / no",
  NUMBER: "Number",
  DATE: "Date",
  COUNTRY: "Country",
};

/** A question's values as its edit form shows them (options one a line, ticket types comma-joined). */
export function questionValues(question: Question): Record<string, string> {
  return {
    label: question.label,
    kind: question.kind,
    required: question.required ? "yes" : "",
    options: question.options.join("\n"),
    ticketTypeIds: (question.ticketTypeIds ?? []).join(","),
  };
}

/** The submitted values with the checked ticket types, as `QuestionFormFields` reads them back. */
export const withCheckedTypes = (values: Record<string, string>, body: unknown) => ({
  ...values,
  ticketTypeIds: formList(body, "ticketTypeIds").join(","),
});

/**
 * The form as the service's input: options one a line (blank lines dropped, ignored for kinds
 * without options), none of the ticket types checked meaning every one.
 */
export function questionInput(values: Record<string, string>, body: unknown) {
  const ticketTypeIds = formList(body, "ticketTypeIds");
  const kind = values.kind ?? "";
  const options = (values.options ?? "")
    .split(/\r?\n/)
    .map((o) => o.trim())
    .filter(Boolean);
  return {
    label: values.label ?? "",
    required: values.required === "yes",
    options: hasOptions(kind as QuestionKind) ? options : null,
    ticketTypeIds: ticketTypeIds.length > 0 ? ticketTypeIds : null,
  };
}

/** The inputs of a question; `kind` is chosen when adding only (a question's kind never changes). */
export function QuestionFormFields(props: {
  state: FormState;
  ticketTypes: readonly TicketType[];
  fixedKind?: QuestionKind;
}) {
  const { state } = props;
  return (
    <>
      <TextField
        name="label"
        label="Question"
        state={state}
        required
        hint="As the registration form asks it."
      />
      {props.fixedKind ? (
        <p class="muted">
          Kind: {kindLabels[props.fixedKind]}. A question's kind cannot change: add a new question instead.
        </p>
      ) : (
        <SelectField
          name="kind"
          label="Kind"
          state={state}
          required
          options={questionKinds.map((k) => ({ value: k, label: kindLabels[k] }))}
        />
      )}
      {props.fixedKind && !hasOptions(props.fixedKind) ? null : (
        <TextAreaField
          name="options"
          label="Options"
          state={state}
          rows={4}
          hint="For one choice or several choices: one option a line, at least two."
        />
      )}
      <div class="checkbox">
        <input
          type="checkbox"
          id="f-required"
          name="required"
          value="yes"
          checked={state.values.required === "yes"}
        />
        <label for="f-required">
          <span class="checkbox-label">Required</span>
          <span class="hint">A registration without an answer is refused.</span>
        </label>
      </div>
      {props.ticketTypes.length > 0 ? (
        <CheckboxGroup
          name="ticketTypeIds"
          label="Only for these ticket types"
          state={state}
          hint="None checked: asked for every ticket type."
          options={props.ticketTypes.map((t) => ({ value: t.id, label: t.name }))}
          checked={(state.values.ticketTypeIds ?? "").split(",").filter(Boolean)}
        />
      ) : null}
    </>
  );
}
