import type { FastifyInstance } from "fastify";
import { isUserError } from "../../errors.js";
import type { OrderSettings } from "../../modules/orders/order-settings.js";
import { actorOf, type PageContext, redirectTo } from "../context.js";
import { formValues, percentToBasisPoints } from "../form-data.js";
import { Form, formState, SubmitButton, TextAreaField, TextField } from "../ui/forms.js";

/** Settings → General: how orders on the event page are paid by bank transfer, and how long seats are held. */
export function PaymentsPanel(props: { ctx: PageContext; projectId: string; settings: OrderSettings }) {
  const state = formState({
    holdMinutes: String(props.settings.holdMinutes),
    bankDetails: props.settings.bankDetails ?? "",
    taxRate: String(props.settings.taxRateBasisPoints / 100),
    sellerDetails: props.settings.sellerDetails ?? "",
    invoicePrefix: props.settings.invoicePrefix,
  });
  return (
    <section class="panel" aria-labelledby="payments-heading">
      <h3 id="payments-heading">Payments</h3>
      <p>
        Tickets set to "pay by bank transfer" are sold in orders on the event page: the buyer sees these bank
        details and the order's code as the payment reference, and you mark the order paid when the money
        arrives.
      </p>
      <Form action={`/b/${props.projectId}/settings/payments`} csrf={props.ctx.csrf} label="Payments">
        <TextAreaField
          name="bankDetails"
          label="Bank details"
          state={state}
          rows={3}
          hint="Account holder, IBAN and BIC. Empty: bank transfer is not offered."
        />
        <TextField
          name="holdMinutes"
          label="Hold seats for (minutes)"
          type="number"
          state={state}
          required
          hint="How long an unpaid order keeps its seats (5 to 20,160, i.e. 14 days). Transfers take days: 4,320 is three."
        />
        <TextField
          name="taxRate"
          label="Tax rate (%)"
          state={state}
          type="number"
          min="0"
          step="0.01"
          hint="Included in every ticket price (prices are gross), unless a ticket type sets its own. 0: no tax."
        />
        <TextAreaField
          name="sellerDetails"
          label="Seller details for invoices"
          state={state}
          rows={4}
          hint="Your name or company, postal address and VAT id, as printed on invoices. Empty: no invoices are issued."
        />
        <TextField
          name="invoicePrefix"
          label="Invoice number prefix"
          state={state}
          hint="Invoice and credit-note numbers are this prefix and a running number without gaps: INV-2026- gives INV-2026-0001."
        />
        <div class="form-actions">
          <SubmitButton>Save payment settings</SubmitButton>
        </div>
      </Form>
    </section>
  );
}

/** Saves the payment settings (needs project:write, like the other General settings). */
export function registerPaymentSettings(app: FastifyInstance): void {
  app.post<{ Params: { projectId: string } }>("/b/:projectId/settings/payments", async (request, reply) => {
    const values = formValues(request.body);
    const back = `/b/${request.params.projectId}/settings`;
    const holdText = values.holdMinutes?.trim() ?? "";
    const taxText = values.taxRate?.trim().replace(",", ".") ?? "";
    try {
      await app.services.orders.updateSettings(actorOf(request), request.params.projectId, {
        holdMinutes: /^\d{1,6}$/.test(holdText) ? Number(holdText) : Number.NaN,
        bankDetails: values.bankDetails,
        taxRateBasisPoints: percentToBasisPoints(taxText),
        sellerDetails: values.sellerDetails ?? null,
        invoicePrefix: values.invoicePrefix ?? "",
      });
    } catch (error) {
      if (!isUserError(error)) throw error;
      const problem = error.details.fieldErrors?.[0];
      const text = problem
        ? `Payment settings not saved: ${problem.field.join(".")} ${problem.message}.`
        : error.message;
      return redirectTo(request, reply, back, { kind: "error", text });
    }
    return redirectTo(request, reply, back, { kind: "success", text: "Payment settings saved." });
  });
}
