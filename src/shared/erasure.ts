import type { Tx } from "../db/database.js";

/**
 * Erasure of one attendee (GDPR Art. 17): who they were, so that every module can find and replace
 * what it stored of them, inside the erasing transaction.
 */
export interface ErasedPerson {
  attendeeId: string;
  projectId: string;
  name: string;
  email: string;
  company: string | null;
}

/**
 * What each module does to its own tables when an attendee is erased, inside the erasing
 * transaction (services.ts composes them, as it does the cancellation's effects).
 */
export type OnAttendeeErased = (trx: Tx, person: ErasedPerson) => Promise<unknown>;

/** The name an erased attendee keeps: the row stays, so seats, counts and check-ins add up. */
export const erasedName = "Erased attendee";

/**
 * The address an erased attendee keeps: unique per attendee (the one-active-registration-per-email
 * index still holds) and in the `.invalid` top-level domain, which can never receive mail.
 */
export function erasedEmail(attendeeId: string): string {
  return `erased-${attendeeId}@erased.invalid`;
}

/** Whether an address is one `erasedEmail` made. */
export function isErasedEmail(email: string): boolean {
  return email.endsWith("@erased.invalid");
}

/**
 * A LIKE pattern matching text that contains `text` (compare with `lower(column)`): the wildcards
 * of a name or address are escaped, so `a_b@x` matches only itself. Use with `escape '\'`.
 */
export function containing(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Someone's personal text as it may be stored, and what replaces it once they are erased: an
 * attendee (attendeeText) or a whole account (accountText).
 */
export interface ErasedText {
  name: string;
  email: string;
  company: string | null;
  nameAfter: string;
  emailAfter: string;
}

/** What an erased attendee's text becomes. */
export function attendeeText(person: ErasedPerson): ErasedText {
  return { ...person, nameAfter: erasedName, emailAfter: erasedEmail(person.attendeeId) };
}

/** An erased account (a user: organizer or developer), as the modules find it in their tables. */
export interface ErasedAccount {
  userId: string;
  name: string;
  email: string;
}

/** What an erased account's name becomes wherever it was recorded (the audit log's actor). */
export const erasedUserName = "Erased user";

/** What an erased account's text becomes: a name and an address that name no one. */
export function accountText(account: ErasedAccount): ErasedText {
  return {
    name: account.name,
    email: account.email,
    company: null,
    nameAfter: erasedUserName,
    emailAfter: `erased-user-${account.userId}@erased.invalid`,
  };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Replaces the person's address anywhere in `text` (any case) with their erased address. */
function withoutEmail(text: string, person: ErasedText): string {
  return text.replace(new RegExp(escapeRegExp(person.email), "gi"), person.emailAfter);
}

/**
 * A stored JSON document (an audit entry's values, a webhook payload) with the person taken out:
 * a string value equal to their name (or, with `aboutThem`, their company) is replaced, their address
 * wherever it appears. Other values are left alone: a name is matched whole, so "Ana" does not touch
 * "Banana". Text that is not JSON has the address and the whole name replaced as plain text.
 */
export function withoutPerson(json: string, person: ErasedText, aboutThem: boolean): string {
  const replace = (value: unknown): unknown => {
    if (typeof value === "string") {
      if (value === person.name) return person.nameAfter;
      // A full name of several words inside a longer text ("Ana Lima <…>") is theirs too.
      if (person.name.includes(" ") && value.includes(person.name)) {
        return withoutEmail(value.replaceAll(person.name, person.nameAfter), person);
      }
      if (aboutThem && person.company !== null && value === person.company) return null;
      return withoutEmail(value, person);
    }
    if (Array.isArray(value)) return value.map(replace);
    if (value && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replace(v)]));
    }
    return value;
  };
  try {
    return JSON.stringify(replace(JSON.parse(json)));
  } catch {
    return withoutEmail(json, person).replaceAll(person.name, person.nameAfter);
  }
}

/**
 * An imported file's text with the person taken out: on each line that holds their address, the
 * address and their name are replaced and their company removed (the other lines, other people's,
 * stay as they were).
 */
export function linesWithoutPerson(text: string, person: ErasedText): string {
  const email = person.email.toLowerCase();
  const company = person.company;
  return text
    .split("\n")
    .map((line) => {
      if (!line.toLowerCase().includes(email)) return line;
      const erased = withoutEmail(line, person).replaceAll(person.name, person.nameAfter);
      return company ? erased.replaceAll(company, "") : erased;
    })
    .join("\n");
}
