import {
  type AnswerValue,
  countryCodes,
  countryName,
  isAskedFor,
  type Question,
} from "../../modules/questions/questions.model.js";
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
        {props.required ? null : <span class="optional"> (optional)</span>}
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

/** One question's input, by its kind. */
function QuestionField(props: {
  question: Question;
  name: string;
  value: string | string[] | undefined;
  errors: FormState["errors"];
  hint: string | undefined;
  idPrefix: string | undefined;
}) {
  const { question, name, value } = props;
  const text = typeof value === "string" ? value : "";
  const field = {
    name,
    label: question.label,
    required: question.required,
    hint: props.hint,
    idPrefix: props.idPrefix,
    state: { values: { [name]: text }, errors: props.errors },
  };
  const options = question.options.map((o) => ({ value: o, label: o }));
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
      return <SelectField {...field} options={options} placeholder="Choose…" />;
    case "COUNTRY":
      return (
        <SelectField
          {...field}
          options={countryCodes.map((code) => ({ value: code, label: countryName(code) }))}
          placeholder="Choose a country…"
        />
      );
    case "YES_NO":
      return (
        <ChoiceGroup
          {...field}
          type="radio"
          options={[
            { value: "yes", label: "Yes" },
            { value: "no", label: "No" },
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
 * the visitor pick the ticket.
 */
export function QuestionFields(props: {
  questions: readonly Question[];
  answers: FormAnswers;
  state: FormState;
  prefix?: string;
  idPrefix?: string;
  ticketTypeNames?: ReadonlyMap<string, string>;
}) {
  const prefix = props.prefix ?? "";
  return (
    <>
      {props.questions.map((question) => {
        const names = props.ticketTypeNames;
        const hint =
          names && question.ticketTypeIds
            ? `Asked for: ${question.ticketTypeIds.map((id) => names.get(id) ?? "another ticket").join(", ")}.`
            : undefined;
        return (
          <QuestionField
            question={question}
            name={answerName(prefix, question.id)}
            value={props.answers[question.id]}
            errors={props.state.errors}
            hint={hint}
            idPrefix={props.idPrefix}
          />
        );
      })}
    </>
  );
}
