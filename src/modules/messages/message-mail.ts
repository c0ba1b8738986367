/** The placeholders a message may use, and what each is filled with for one recipient. */
export const placeholders = ["name", "ticketCode", "ticketType", "event"] as const;

type Placeholder = (typeof placeholders)[number];

/** One recipient's values for the placeholders. */
export type RecipientValues = Record<Placeholder, string>;

const placeholderPattern = /\{\{\s*([A-Za-z]+)\s*\}\}/g;

/** The `{{…}}` names in `text` that are no placeholder, so the form can refuse a typo before sending. */
export function unknownPlaceholders(text: string): string[] {
  const known = new Set<string>(placeholders);
  return [...text.matchAll(placeholderPattern)].map((m) => m[1] ?? "").filter((name) => !known.has(name));
}

/** `text` with each placeholder replaced by the recipient's value (plain text: nothing is interpreted). */
function fillIn(text: string, values: RecipientValues): string {
  return text.replace(placeholderPattern, (whole, name: string) =>
    name in values ? values[name as Placeholder] : whole,
  );
}

/**
 * One recipient's email: plain text only, so there is nothing to track (no pixel, no rewritten
 * link) and nothing the organizer writes can become markup in the attendee's mail client.
 */
export function messageMail(
  message: { subject: string; body: string },
  to: string,
  values: RecipientValues,
): { to: string; subject: string; text: string } {
  // A subject is one header line: a filled-in value must not add a line break to it.
  const subject = fillIn(message.subject, values).replace(/[\r\n]+/g, " ");
  return { to, subject, text: fillIn(message.body, values) };
}
