import type { FastifyInstance } from "fastify";
import { isUserError } from "../../errors.js";
import type { OrderSettings } from "../../modules/orders/order-settings.js";
import type { StripeAccountStatus } from "../../modules/orders/stripe/stripe-account.js";
import { actorOf, type PageContext, redirectTo } from "../context.js";
import { formValues, percentToBasisPoints } from "../form-data.js";
import { readLocalTimes, toLocalInput } from "../time.js";
import { Form, formState, SelectField, SubmitButton, TextAreaField, TextField } from "../ui/forms.js";

/** What the Payments panel shows: the order settings, whether Stripe's keys are set, and the webhook's address. */
export type PaymentSettingsView = OrderSettings & {
  stripe: StripeAccountStatus;
  stripeWebhookUrl: string;
  /** The project's zone: the self-cancel deadline is entered and shown in it. */
  timezone: string;
};

/**
 * Card payments: the Stripe keys (write-only: a saved key is shown as its hint, never again in
 * full) and the endpoint to give Stripe for its notifications.
 */
function StripePanel(props: { ctx: PageContext; projectId: string; settings: PaymentSettingsView }) {
  const { stripe } = props.settings;
  const action = `/b/${props.projectId}/settings/stripe`;
  return (
    <section class="panel" aria-labelledby="stripe-heading">
      <h3 id="stripe-heading">Card payments (Stripe)</h3>
      <p>
        Tickets set to "pay by card (Stripe)" send the buyer to Stripe Checkout. In Stripe's dashboard, add a
        webhook endpoint with this address for the events{" "}
        <code class="break">checkout.session.completed</code> and{" "}
        <code class="break">checkout.session.async_payment_succeeded</code>:
      </p>
      <p>
        <code class="break">{props.settings.stripeWebhookUrl}</code>
      </p>
      <p>
        {stripe.configured
          ? `Stripe keys saved: ${stripe.keyHint}.`
          : "No Stripe keys saved: card payment is off."}
      </p>
      <Form action={action} csrf={props.ctx.csrf} label="Stripe keys">
        <TextField
          name="secretKey"
          label="Secret key"
          type="password"
          state={formState()}
          required
          autocomplete="off"
          hint="sk_test_… to try it out, sk_live_… to take money. Stored encrypted; never shown again."
        />
        <TextField
          name="webhookSecret"
          label="Webhook signing secret"
          type="password"
          state={formState()}
          required
          autocomplete="off"
          hint="whsec_…, shown by Stripe for the endpoint above."
        />
        <div class="form-actions">
          <SubmitButton>Save Stripe keys</SubmitButton>
        </div>
      </Form>
      {stripe.configured ? (
        <Form
          action={`${action}/remove`}
          csrf={props.ctx.csrf}
          label="Remove Stripe keys"
          confirm="Remove the Stripe keys? Card payment stops at once; paid orders stay paid."
        >
          <SubmitButton variant="danger">Remove Stripe keys</SubmitButton>
        </Form>
      ) : null}
    </section>
  );
}

/** Settings → General: how orders on the event page are paid by bank transfer, and how long seats are held. */
export function PaymentsPanel(props: { ctx: PageContext; projectId: string; settings: PaymentSettingsView }) {
  const state = formState({
    holdMinutes: String(props.settings.holdMinutes),
    bankDetails: props.settings.bankDetails ?? "",
    taxRate: String(props.settings.taxRateBasisPoints / 100),
    pricesEntered: props.settings.pricesNet ? "net" : "gross",
    sellerDetails: props.settings.sellerDetails ?? "",
    invoicePrefix: props.settings.invoicePrefix,
    selfCancelUntil: toLocalInput(props.settings.selfCancelUntil, props.settings.timezone),
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
          hint="The tax of every ticket price, unless a ticket type sets its own. 0: no tax."
        />
        <SelectField
          name="pricesEntered"
          label="Ticket prices are entered"
          state={state}
          options={[
            { value: "gross", label: "Gross: the tax is included" },
            { value: "net", label: "Net: the tax is added on top" },
          ]}
          hint="Net suits events sold to businesses: a €100.00 ticket at 19% costs €119.00. Orders already placed keep their prices."
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
        <TextField
          name="selfCancelUntil"
          label={`Buyers may cancel paid orders until (${props.settings.timezone} time)`}
          type="datetime-local"
          state={state}
          hint="Until then a buyer can cancel their paid order from its page and is refunded in full (a card payment through Stripe; a bank transfer you send back). Empty: buyers cannot cancel."
        />
        <div class="form-actions">
          <SubmitButton>Save payment settings</SubmitButton>
        </div>
      </Form>
      <StripePanel {...props} />
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
      const project = await app.services.projects.get(actorOf(request), request.params.projectId);
      const { selfCancelUntil } = readLocalTimes(values, ["selfCancelUntil"], project.timezone);
      await app.services.orders.updateSettings(actorOf(request), request.params.projectId, {
        holdMinutes: /^\d{1,6}$/.test(holdText) ? Number(holdText) : Number.NaN,
        bankDetails: values.bankDetails,
        taxRateBasisPoints: percentToBasisPoints(taxText),
        sellerDetails: values.sellerDetails ?? null,
        invoicePrefix: values.invoicePrefix ?? "",
        selfCancelUntil,
        // Absent (an older form): kept as it is.
        pricesNet: values.pricesEntered === undefined ? undefined : values.pricesEntered === "net",
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

  app.post<{ Params: { projectId: string } }>("/b/:projectId/settings/stripe", async (request, reply) => {
    const values = formValues(request.body);
    const back = `/b/${request.params.projectId}/settings`;
    try {
      await app.services.stripeAccounts.save(actorOf(request), request.params.projectId, {
        secretKey: values.secretKey ?? "",
        webhookSecret: values.webhookSecret ?? "",
      });
    } catch (error) {
      if (!isUserError(error)) throw error;
      // The message names the field and the rule, never the value typed.
      const problem = error.details.fieldErrors?.[0];
      const text = problem
        ? `Stripe keys not saved: ${problem.field.join(".")} ${problem.message}.`
        : error.message;
      return redirectTo(request, reply, back, { kind: "error", text });
    }
    return redirectTo(request, reply, back, { kind: "success", text: "Stripe keys saved." });
  });

  app.post<{ Params: { projectId: string } }>(
    "/b/:projectId/settings/stripe/remove",
    async (request, reply) => {
      await app.services.stripeAccounts.remove(actorOf(request), request.params.projectId);
      const back = `/b/${request.params.projectId}/settings`;
      return redirectTo(request, reply, back, { kind: "info", text: "Stripe keys removed." });
    },
  );
}
