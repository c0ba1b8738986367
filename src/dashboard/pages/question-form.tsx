import type { QuestionKind } from "../../db/schema.js";
import type { QuestionTranslation } from "../../modules/questions/question-translations.js";
import { hasOptions, type Question, questionKinds } from "../../modules/questions/questions.model.js";
import type { TicketType } from "../../modules/tickets/tickets.service.js";
import { type Language, languageNames } from "../../shared/i18n/languages.js";
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

/** The field names of a question's texts in one language (`tr.de.label`, `tr.de.option.0`). */
const translationField = {
  label: (language: Language) => `tr.${language}.label`,
  help: (language: Language) => `tr.${language}.help`,
  option: (language: Language, index: number) => `tr.${language}.option.${index}`,
};

/**
 * A question's values as its edit form shows them (options one a line, ticket types comma-joined,
 * each translation's texts under `tr.<language>.`).
 */
export function questionValues(
  question: Question,
  translations: readonly QuestionTranslation[] = [],
): Record<string, string> {
  const translated = translations.flatMap((tr) => [
    [translationField.label(tr.language), tr.label ?? ""],
    [translationField.help(tr.language), tr.help ?? ""],
    ...tr.options.map((text, i) => [translationField.option(tr.language, i), text ?? ""]),
  ]);
  return {
    ...Object.fromEntries(translated),
    label: question.label,
    help: question.help ?? "",
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
export function questionInput(
  values: Record<string, string>,
  body: unknown,
  translated?: { languages: readonly Language[]; options: readonly string[] },
) {
  const ticketTypeIds = formList(body, "ticketTypeIds");
  const kind = values.kind ?? "";
  const options = (values.options ?? "")
    .split(/\r?\n/)
    .map((o) => o.trim())
    .filter(Boolean);
  // The form showed a field per option the question had; each option saved now takes the text of
  // its field, so a reordered option keeps its translation and a renamed one starts without.
  const translations = translated?.languages.map((language) => ({
    language,
    label: values[translationField.label(language)] ?? "",
    help: values[translationField.help(language)] ?? "",
    options: options.map((option) => {
      const shown = translated.options.indexOf(option);
      return shown < 0 ? "" : (values[translationField.option(language, shown)] ?? "");
    }),
  }));
  return {
    label: values.label ?? "",
    help: values.help ?? "",
    required: values.required === "yes",
    ...(translations ? { translations } : {}),
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
      <TextField name="help" label="Help" state={state} hint="A line shown under the question." />
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

/**
 * The question's texts in each of the event's other languages: its label, help and options. A blank
 * field shows the text as written (the event's first language) on the page.
 */
export function QuestionTranslationFields(props: {
  state: FormState;
  question: Question;
  languages: readonly Language[];
}) {
  const { state, question } = props;
  if (props.languages.length === 0) return null;
  return (
    <>
      <p class="muted">
        The question in the event's other languages. A blank field shows the text above instead; answers are
        stored as the options above, whatever language they are picked in.
      </p>
      {props.languages.map((language) => (
        <fieldset class="fieldset">
          <legend>Texts in {languageNames[language]}</legend>
          <TextField
            name={translationField.label(language)}
            label="Question"
            state={state}
            hint={`As written: ${question.label}`}
            idPrefix={`tr-${language}`}
          />
          <TextField
            name={translationField.help(language)}
            label="Help"
            state={state}
            idPrefix={`tr-${language}`}
          />
          {question.options.map((option, i) => (
            <TextField
              name={translationField.option(language, i)}
              label={`Option “${option}”`}
              state={state}
              idPrefix={`tr-${language}`}
            />
          ))}
        </fieldset>
      ))}
    </>
  );
}
