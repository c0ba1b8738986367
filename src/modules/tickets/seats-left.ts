/** What the seats left of a ticket type are computed from, read together (`seatFigures`). */
export interface SeatFigures {
  /**
   * Seats taken: registrations, tickets of pending orders within their hold and open waiting-list
   * offers (tickets.repository `soldCount`).
   */
  sold: number;
  /** People in the ticket type's waiting list not yet offered a seat. */
  waiting: number;
}

/** The figures of a ticket type nobody took a seat of nor waits for. */
export const noFigures: SeatFigures = { sold: 0, waiting: 0 };

/**
 * Who takes a seat: anyone (`open`), or the waiting list (`offered`): the holder of an offer taking
 * the seat it held (the offer ended in the same write, so that seat is theirs, not the line's), and
 * the waiting list's worker counting the free seats it may offer to the line.
 */
export type SeatClaim = "open" | "offered";

/**
 * The seats of a ticket type that can still be sold: its quantity less the seats taken, less the
 * free seats owed to people waiting (the waiting list's worker offers them shortly; until then
 * they must not go to whoever asks first). The one rule of availability: the event page, the API,
 * the dashboard and every seat claim (registration, order, import) read it from here.
 */
export function seatsLeft(quantity: number, figures: SeatFigures, claim: SeatClaim = "open"): number {
  const owed = claim === "offered" ? 0 : figures.waiting;
  return Math.max(0, quantity - figures.sold - owed);
}
