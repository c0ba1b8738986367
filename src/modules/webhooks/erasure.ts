import type { Tx } from "../../db/database.js";
import { attendeeText, type ErasedPerson, withoutPerson } from "../../shared/erasure.js";
import { webhooksRepository as repo } from "./webhooks.repository.js";

/**
 * Takes an erased attendee out of the delivery log: stored payloads and errors lose their name,
 * address and (in deliveries about them) company; the receivers' responses that may echo them are
 * dropped. A delivery still pending renders its payload when it is sent, from the erased row.
 */
export async function eraseFromWebhookLogs(trx: Tx, person: ErasedPerson): Promise<void> {
  const text = attendeeText(person);
  for (const delivery of await repo.deliveriesMentioning(trx, person)) {
    const aboutThem = delivery.object_id === person.attendeeId;
    const payload = delivery.payload === null ? null : withoutPerson(delivery.payload, text, aboutThem);
    const lastError =
      delivery.last_error === null ? null : withoutPerson(delivery.last_error, text, aboutThem);
    if (payload !== delivery.payload || lastError !== delivery.last_error) {
      await repo.replaceDeliveryText(trx, delivery.id, { payload, last_error: lastError });
    }
  }
  await repo.forgetResponsesMentioning(trx, person);
}
