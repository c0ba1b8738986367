import type { DiscountKind } from "../../db/schema.js";
import type { DiscountCode } from "../../modules/discount-codes/discount-codes.model.js";
import type { TicketType } from "../../modules/tickets/tickets.service.js";
import { formatMoney, parseMoney } from "../../shared/money.js";
import { FormReader, formList, stateFromError } from "../form-data.js";
import { CheckboxGroup, type FormState, SelectField, TextField } from "../ui/forms.js";

// The terms of a discount code as a form: the fields "Add code" and "Generate codes" share, and
// how their values become the service's input.

const kindOptions: { value: DiscountKind; label: string }[] = [
  { value: "PERCENTAGE", label: "Percentage off each ticket" },
  { value: "FIXED_AMOUNT", label: "Amount off each ticket" },
  { value: "ACCESS", label: "Access code: unlocks hidden ticket types" },
];

/** What a code does, in the organizer's words. */
export function terms(code: DiscountCode, currency: string): string {
  if (code.kind === "PERCENTAGE") return `${code.percentOff}% off`;
  if (code.kind === "FIXED_AMOUNT") return `${formatMoney(code.amountOffMinor ?? 0, currency)} off`;
  return "Access";
}

/** The terms shared by "Add code" and "Generate codes". */
export function TermFields(props: { state: FormState; ticketTypes: TicketType[]; prefix: string }) {
  const idPrefix = props.prefix;
  return (
    <>
      <SelectField name="kind" label="Kind" state={props.state} options={kindOptions} idPrefix={idPrefix} />
      <div class="field-row">
        <TextField
          name="amount"
          label="Off each ticket"
          state={props.state}
          idPrefix={idPrefix}
          hint="A percentage (e.g. 25) or an amount (e.g. 20.00); empty for an access code."
        />
        <TextField
          name="maxUses"
          label="Uses in all"
          type="number"
          min="1"
          state={props.state}
          idPrefix={idPrefix}
        />
        <TextField
          name="maxPerOrder"
          label="Uses per order"
          type="number"
          min="1"
          state={props.state}
          idPrefix={idPrefix}
        />
      </div>
      <div class="field-row">
        <TextField
          name="validFrom"
          label="Valid from"
          type="datetime-local"
          state={props.state}
          idPrefix={idPrefix}
        />
        <TextField
          name="validUntil"
          label="Valid until"
          type="datetime-local"
          state={props.state}
          idPrefix={idPrefix}
        />
      </div>
      {props.ticketTypes.length > 0 ? (
        <CheckboxGroup
          name="ticketTypeIds"
          label="Only for these ticket types"
          state={props.state}
          idPrefix={idPrefix}
          hint="None checked: every public ticket type. A hidden ticket type is unlocked only by a code that names it."
          options={props.ticketTypes.map((t) => ({
            value: t.id,
            label: t.hidden ? `${t.name} (hidden)` : t.name,
          }))}
          checked={(props.state.values.ticketTypeIds ?? "").split(",").filter(Boolean)}
        />
      ) : null}
    </>
  );
}

/** The form's terms as a code's input; problems are thrown together under the form's names. */
export function termsInput(
  values: Record<string, string>,
  body: unknown,
  timeZone: string,
  currency: string,
) {
  const form = new FormReader(values, timeZone);
  const kind = kindOptions.find((k) => k.value === values.kind)?.value ?? "PERCENTAGE";
  const amount = form.text("amount").trim();
  let percentOff: number | null = null;
  let amountOffMinor: number | null = null;
  if (kind === "PERCENTAGE") {
    percentOff = /^\d{1,3}$/.test(amount) ? Number(amount) : null;
    if (percentOff === null) form.problem("amount", "must be a whole percentage such as 25");
  } else if (kind === "FIXED_AMOUNT") {
    amountOffMinor = parseMoney(amount, currency) ?? null;
    if (amountOffMinor === null) form.problem("amount", "must be an amount such as 20.00");
  }
  const ticketTypeIds = formList(body, "ticketTypeIds");
  const input = {
    kind,
    percentOff,
    amountOffMinor,
    maxUses: form.integer("maxUses", false),
    maxPerOrder: form.integer("maxPerOrder", false),
    validFrom: form.time("validFrom", false),
    validUntil: form.time("validUntil", false),
    ticketTypeIds: ticketTypeIds.length > 0 ? ticketTypeIds : null,
  };
  form.done();
  return input;
}

/** Form state after a refused save: the service's amount fields are the form's one "amount". */
export function termsErrorState(error: unknown, values: Record<string, string>): FormState {
  const state = stateFromError(error, values);
  const amount = state.errors.percentOff ?? state.errors.amountOffMinor;
  if (amount) state.errors.amount ??= amount;
  return state;
}

/** The submitted values with the checked ticket types, as `TermFields` reads them back. */
export const withChecked = (values: Record<string, string>, body: unknown) => ({
  ...values,
  ticketTypeIds: formList(body, "ticketTypeIds").join(","),
});
