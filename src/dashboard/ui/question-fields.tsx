import {
  type AnswerValue,
  countryCodes,
  countryName,
  isAskedFor,
  type Question,
} from "../../modules/questions/questions.model.js";
import type { Translator } from "../../shared/i18n/translator.js";
import { formList } from "../form-data.js";
import {
  describedBy,
  FieldNotes,
  type FieldProps,
  type FormState,
  fieldId,
  SelectField,
  TextAreaField,
  TextField,
} from "./forms.js";

/** Answers as a form holds them: text for most kinds, the ticked options for several choices. */
export type FormAnswers = Record<string, string | string[]>;

/** The input name of a question's answer: `answers.<id>`, under `prefix` (a checkout's `tickets.0.`). */
const answerName = (prefix: string, questionId: string) => `${prefix}answers.${questionId}`;

/**
 * The answers a form submitted under `prefix`, for the questions asked for `ticketTypeId`: the form
 * shows every question when the visitor may still change the ticket, and the ones another ticket
 * type asks are dropped here rather than refused. Blank fields are left out (no answer).
 */
export function formAnswers(
  body: unknown,
  questions: readonly Question[],
  prefix: string,
  ticketTypeId: string,
): FormAnswers {
  const answers: FormAnswers = {};
  for (const question of questions) {
    if (!isAskedFor(question, ticketTypeId)) continue;
    const given = formList(body, answerName(prefix, question.id));
    if (question.kind === "SEVERAL_CHOICES") {
      if (given.length > 0) answers[question.id] = given;
    } else if (given[0]?.trim()) answers[question.id] = given[0];
  }
  return answers;
}

/** A stored answer as its form field shows it. */
export function answerFormValue(value: AnswerValue): string | string[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}

/** A group of radio buttons or checkboxes under one legend, with its hint and error. */
function ChoiceGroup(
  props: FieldProps & {
    type: "radio" | "checkbox";
    options: readonly { value: string; label: string }[];
    checked: readonly string[];
  },
) {
  const error = props.state.errors[props.name];
  const id = fieldId(props.name, props.idPrefix);
  return (
    <fieldset
      class={error ? "field choices field-invalid" : "field choices"}
      aria-describedby={describedBy(props)}
    >
      <legend>
        {props.label}
        {props.required ? null : <span class="optional"> {props.optionalLabel ?? "(optional)"}</span>}
      </legend>
      {props.options.map((o, i) => (
        <div class="choice">
          <input
            type={props.type}
            id={`${id}-${i}`}
            name={props.name}
            value={o.value}
            checked={props.checked.includes(o.value)}
          />
          <label for={`${id}-${i}`}>{o.label}</label>
        </div>
      ))}
      <FieldNotes id={id} label={props.label} hint={props.hint} error={error} />
    </fieldset>
  );
}

/** The words of the question fields: the dashboard's English, or the event page's language. */
function fieldWords(words: Translator | undefined) {
  if (!words)
    return {
      optional: "(optional)",
      choose: "Choose…",
      chooseCountry: "Choose a country…",
      yes: "Yes",
      no: "No",
      countries: countryOptions,
    };
  return {
    optional: words.t("field.optional"),
    choose: words.t("question.choose"),
    chooseCountry: words.t("question.chooseCountry"),
    yes: words.t("question.yes"),
    no: words.t("question.no"),
    countries: () =>
      countryCodes
        .map((code) => ({ value: code, label: words.country(code) }))
        .sort((a, b) => a.label.localeCompare(b.label, words.language)),
  };
}

const countryOptions = () => countryCodes.map((code) => ({ value: code, label: countryName(code) }));

/** One question's input, by its kind. */
function QuestionField(props: {
  question: Question;
  name: string;
  value: string | string[] | undefined;
  errors: FormState["errors"];
  hint: string | undefined;
  idPrefix: string | undefined;
  words: ReturnType<typeof fieldWords>;
}) {
  const { question, name, value, words } = props;
  const text = typeof value === "string" ? value : "";
  const field = {
    name,
    label: question.label,
    required: question.required,
    hint: props.hint,
    idPrefix: props.idPrefix,
    optionalLabel: words.optional,
    state: { values: { [name]: text }, errors: props.errors },
  };
  // The value is the option as the organizer wrote it (what is stored); the label may be a translation.
  const options = question.options.map((o, i) => ({ value: o, label: question.optionLabels?.[i] ?? o }));
  switch (question.kind) {
    case "SHORT_TEXT":
      return <TextField {...field} />;
    case "LONG_TEXT":
      return <TextAreaField {...field} rows={3} />;
    case "NUMBER":
      return <TextField {...field} type="number" step="any" />;
    case "DATE":
      return <TextField {...field} type="date" />;
    case "ONE_CHOICE":
      return <SelectField {...field} options={options} placeholder={words.choose} />;
    case "COUNTRY":
      return <SelectField {...field} options={words.countries()} placeholder={words.chooseCountry} />;
    case "YES_NO":
      return (
        <ChoiceGroup
          {...field}
          type="radio"
          options={[
            { value: "yes", label: words.yes },
            { value: "no", label: words.no },
          ]}
          checked={text ? [text] : []}
        />
      );
    case "SEVERAL_CHOICES":
      return (
        <ChoiceGroup
          {...field}
          type="checkbox"
          options={options}
          checked={Array.isArray(value) ? value : []}
        />
      );
  }
}

/**
 * The inputs of a registration's questions, named `answers.<id>` under `prefix` so a refusal's
 * field (`answers.<id>`, or `tickets.0.answers.<id>` in a checkout) lands beside its input.
 * `ticketTypeNames` adds "Asked for: …" to a question some ticket types ask, where the form lets
 * the visitor pick the ticket. With `words` (the event page) the fields speak its language.
 */
export function QuestionFields(props: {
  questions: readonly Question[];
  answers: FormAnswers;
  state: FormState;
  prefix?: string;
  idPrefix?: string;
  ticketTypeNames?: ReadonlyMap<string, string>;
  words?: Translator;
}) {
  const prefix = props.prefix ?? "";
  const words = fieldWords(props.words);
  const t = props.words?.t;
  const askedFor = (names: string[]) =>
    t ? t("question.askedFor", { tickets: names.join(", ") }) : `Asked for: ${names.join(", ")}.`;
  const another = t ? t("question.anotherTicket") : "another ticket";
  return (
    <>
      {props.questions.map((question) => {
        const names = props.ticketTypeNames;
        const asked =
          names && question.ticketTypeIds
            ? askedFor(question.ticketTypeIds.map((id) => names.get(id) ?? another))
            : undefined;
        const hint = [question.help, asked].filter(Boolean).join(" ") || undefined;
        return (
          <QuestionField
            question={question}
            name={answerName(prefix, question.id)}
            value={props.answers[question.id]}
            errors={props.state.errors}
            hint={hint}
            idPrefix={props.idPrefix}
            words={words}
          />
        );
      })}
    </>
  );
}
