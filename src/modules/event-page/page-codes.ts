import { addressKey } from "../../shared/client-address.js";
import type { Throttle, ThrottleRule } from "../accounts/throttle.js";
import type { DiscountCode } from "../discount-codes/discount-codes.model.js";
import type { DiscountCodesService } from "../discount-codes/discount-codes.service.js";
import { noFigures, seatsLeft } from "../tickets/seats-left.js";
import { type createTicketsService, orderableOnPage } from "../tickets/tickets.service.js";
import type { EventContent } from "./event-content.js";

/**
 * Code lookups from one client address per hour. Each one says whether a code exists, so they
 * are counted: a person mistypes a few times; a script guessing short codes ("SPEAKER") stops here.
 */
const codeIpRule: ThrottleRule = { name: "event-code-ip", limit: 120, windowMs: 3_600_000 };

/** The page's content as a code's holder sees it: the code, the hidden types it unlocks added. */
export interface CodedContent {
  content: EventContent;
  code?: DiscountCode;
  /** Why the code typed was not applied, in words for the visitor. */
  error?: string;
}

/**
 * Applies a code a visitor typed (the `code` field or `?code=`) to the page's content: a valid one
 * adds the hidden ticket types it covers (on sale now) beside the public ones; the order prices it.
 */
export async function applyPageCode(
  deps: {
    throttle: Throttle;
    discountCodes: DiscountCodesService;
    tickets: ReturnType<typeof createTicketsService>;
  },
  content: EventContent,
  text: string | undefined,
  clientIp: string,
): Promise<CodedContent> {
  if (!text?.trim()) return { content };
  if (!(await deps.throttle.take([{ rule: codeIpRule, key: addressKey(clientIp) }]))) {
    return { content, error: "Too many codes were tried from your network. Try again in an hour." };
  }
  const projectId = content.project.id;
  const code = await deps.discountCodes.pageCode(projectId, text);
  if (!code) return { content, error: "This code is not valid for this event." };
  // Only a code naming ticket types unlocks hidden ones (`unlocks`); one for every type, none.
  const unlocked = code.ticketTypeIds ? await deps.tickets.unlockedBy(projectId, code.ticketTypeIds) : [];
  const seats = await deps.tickets.seatFigures(unlocked.map((t) => t.id));
  const shown = new Set(content.tickets.map((t) => t.id));
  const tickets = [
    ...content.tickets,
    ...unlocked
      .filter((t) => !shown.has(t.id))
      .map((t) => ({
        ...t,
        remaining: seatsLeft(t.quantity, seats.get(t.id) ?? noFigures),
        // Hidden types are sold only through an order, which carries the code.
        registrable: false,
        orderable: orderableOnPage(t),
      })),
  ];
  return { content: { ...content, tickets }, code };
}
