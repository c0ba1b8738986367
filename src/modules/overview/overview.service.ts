import type { Db } from "../../db/database.js";
import { nowIso, zonedClocks } from "../../shared/time.js";
import type { ProjectAccess } from "../access/access.service.js";
import { assertPermission } from "../access/policy.js";
import { noFigures, type SeatFigures, seatsLeft } from "../tickets/seats-left.js";
import { isOnSale } from "../tickets/tickets.service.js";
import { overviewRepository as repo } from "./overview.repository.js";

/** An amount in minor units of a currency. */
interface Money {
  currency: string;
  minor: number;
}

/** Sums per currency, without zeros, in currency order. */
function moneyList(sums: Map<string, number>): Money[] {
  return [...sums.entries()]
    .filter(([, minor]) => minor > 0)
    .map(([currency, minor]) => ({ currency, minor }))
    .sort((a, b) => a.currency.localeCompare(b.currency));
}

/** A ticket type's sales against its capacity. */
interface TicketTypeFigures {
  id: string;
  name: string;
  quantity: number;
  /** Active registrations. */
  sold: number;
  /** In its sales window with a seat a buyer can take (`seatsLeft` above zero). */
  onSaleNow: boolean;
}

/** A bar of a chart: its label (a local date, or a local time) and its count. */
export interface ChartPoint {
  label: string;
  value: number;
}

/** "How is my event doing": the figures of the Overview page. */
export interface ProjectOverview {
  ticketTypes: TicketTypeFigures[];
  registered: number;
  capacity: number;
  onSaleNow: number;
  /** Expected revenue: minor units per currency, each ticket type's current price × its registrations. */
  revenue: Money[];
  /**
   * The part of `revenue` taken: tickets not sold on the event page (the organizer registers them,
   * paid through their own channel) and "pay at the door" tickets of people checked in.
   */
  paid: Money[];
  /** The rest: "at the door" tickets of people not yet checked in, and every "by invoice" ticket. */
  due: Money[];
  /** How many registrations `due` counts, by how they are to be paid. */
  dueAtDoor: number;
  dueByInvoice: number;
  checkedIn: number;
  /**
   * Orders counted apart by whether they are paid (their amounts as frozen when placed, less what
   * was refunded of them), for a reader holding orders:read; null otherwise.
   */
  orders: { paid: number; paidAmounts: Money[]; pending: number; pendingAmounts: Money[] } | null;
  /** Registrations per local day, cumulative, from the first registration (last 180 days at most). */
  registrationsOverTime: ChartPoint[];
  /** Check-ins per 15 minutes, one chart per event day that has any (local times). */
  checkInDays: { day: string; points: ChartPoint[] }[];
}

const maxDays = 180;
const dayMs = 86_400_000;

function registrationsByDay(rows: { hour: string; n: string | number }[], timeZone: string): ChartPoint[] {
  const perDay = new Map<string, number>();
  const clockOf = zonedClocks(timeZone);
  for (const row of rows) {
    const day = clockOf(Date.parse(`${row.hour}:00:00.000Z`)).slice(0, 10);
    perDay.set(day, (perDay.get(day) ?? 0) + Number(row.n));
  }
  const days = [...perDay.keys()].sort();
  const first = days[0];
  const last = days.at(-1);
  if (!first || !last) return [];
  // Every day from the first to the last, with zero-days filled in, so the line's slope means something.
  const points: ChartPoint[] = [];
  let total = 0;
  for (let t = Date.parse(`${first}T00:00:00Z`); t <= Date.parse(`${last}T00:00:00Z`); t += dayMs) {
    const day = new Date(t).toISOString().slice(0, 10);
    total += perDay.get(day) ?? 0;
    points.push({ label: day, value: total });
  }
  return points.slice(-maxDays);
}

function checkInsByDay(
  rows: { hour: string; quarter: number | string; n: string | number }[],
  timeZone: string,
): ProjectOverview["checkInDays"] {
  const days = new Map<string, ChartPoint[]>();
  const clockOf = zonedClocks(timeZone);
  for (const row of rows) {
    const minute = String(Number(row.quarter) * 15).padStart(2, "0");
    const clock = clockOf(Date.parse(`${row.hour}:${minute}:00.000Z`));
    const day = clock.slice(0, 10);
    const time = clock.slice(11, 16);
    const points = days.get(day) ?? [];
    points.push({ label: time, value: Number(row.n) });
    days.set(day, points);
  }
  return [...days.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .slice(-7)
    .map(([day, points]) => ({ day, points: fillQuarters(points) }));
}

// The quarters between the first and the last check-in of a day, empty ones as zero.
function fillQuarters(points: ChartPoint[]): ChartPoint[] {
  const minutes = (label: string) => Number(label.slice(0, 2)) * 60 + Number(label.slice(3, 5));
  const byMinute = new Map(points.map((p) => [minutes(p.label), p.value]));
  const first = Math.min(...byMinute.keys());
  const last = Math.max(...byMinute.keys());
  const filled: ChartPoint[] = [];
  for (let m = first; m <= last; m += 15) {
    const label = `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
    filled.push({ label, value: byMinute.get(m) ?? 0 });
  }
  return filled;
}

/** Where the Overview reads what `seatsLeft` needs (the tickets service's `seatFigures`). */
interface SeatFigureSource {
  seatFigures(ticketTypeIds: readonly string[]): Promise<Map<string, SeatFigures>>;
}

/** The Overview's figures; reading them needs tickets:read and attendees:read. */
export function createOverviewService(db: Db, tickets: SeatFigureSource) {
  return {
    /** Registrations, capacity, sales, revenue, check-in rate and the two charts of a project. */
    async overview(
      access: ProjectAccess,
      project: { timezone: string; startsAt: string | null; endsAt: string | null },
    ): Promise<ProjectOverview> {
      assertPermission(access, "tickets:read");
      assertPermission(access, "attendees:read");
      const { projectId } = access;
      const now = nowIso();
      const types = await repo.ticketTypes(db, projectId);
      // "On sale" is what a buyer could take now: `seatsLeft`, the one rule, which also counts held
      // seats (orders, offers) and free seats owed to the waiting list, unlike the registrations shown.
      const seats = await tickets.seatFigures(types.map((t) => t.id));
      const ticketTypes = types.map((t) => ({
        id: t.id,
        name: t.name,
        quantity: Number(t.quantity),
        sold: Number(t.sold),
        onSaleNow: isOnSale(t, now) && seatsLeft(Number(t.quantity), seats.get(t.id) ?? noFigures) > 0,
      }));
      const revenue = new Map<string, number>();
      const paid = new Map<string, number>();
      const add = (sums: Map<string, number>, currency: string, minor: number) =>
        sums.set(currency, (sums.get(currency) ?? 0) + minor);
      let dueAtDoor = 0;
      let dueByInvoice = 0;
      for (const t of types) {
        const sold = Number(t.sold);
        add(revenue, t.currency, sold * t.price_minor);
        // "At the door" is taken when the person is let in, and an invoice stays due (nothing tells
        // it was paid); bank transfers are paid when their orders are (added below); other tickets
        // were sold by the organizer.
        const settled =
          t.payment_mode === "AT_DOOR"
            ? Number(t.checked_in)
            : t.payment_mode === "INVOICE" || t.payment_mode === "BANK_TRANSFER"
              ? 0
              : sold;
        add(paid, t.currency, settled * t.price_minor);
        if (t.price_minor > 0 && t.payment_mode === "AT_DOOR") dueAtDoor += sold - settled;
        if (t.price_minor > 0 && t.payment_mode === "INVOICE") dueByInvoice += sold;
      }
      const orderRows = await repo.orderTotals(db, projectId);
      const paidAmounts = new Map<string, number>();
      const pendingAmounts = new Map<string, number>();
      let paidOrders = 0;
      let pendingOrders = 0;
      for (const row of orderRows) {
        const total = Number(row.total ?? 0);
        if (row.state === "PAID") {
          paidOrders += Number(row.n);
          add(paidAmounts, row.currency, total);
          // A bank transfer is paid when its order is: the one way of paying the loop above leaves out.
          if (row.provider === "BANK_TRANSFER") add(paid, row.currency, total);
        } else {
          pendingOrders += Number(row.n);
          add(pendingAmounts, row.currency, total);
        }
      }
      const orders = access.permissions.has("orders:read")
        ? {
            paid: paidOrders,
            paidAmounts: moneyList(paidAmounts),
            pending: pendingOrders,
            pendingAmounts: moneyList(pendingAmounts),
          }
        : null;
      const due = new Map(
        [...revenue].map(([currency, minor]) => [currency, minor - (paid.get(currency) ?? 0)]),
      );
      // Check-ins of the event's days (a day either side for time zones), in whole UTC hours (as
      // counted); all of them when it has no dates.
      const hourOf = (t: number) => new Date(t).toISOString().slice(0, 13);
      const from = project.startsAt ? hourOf(Date.parse(project.startsAt) - dayMs) : "";
      const to = project.endsAt ? hourOf(Date.parse(project.endsAt) + dayMs) : "9999";
      return {
        ticketTypes,
        registered: ticketTypes.reduce((sum, t) => sum + t.sold, 0),
        capacity: ticketTypes.reduce((sum, t) => sum + t.quantity, 0),
        onSaleNow: ticketTypes.filter((t) => t.onSaleNow).length,
        revenue: moneyList(revenue),
        paid: moneyList(paid),
        due: moneyList(due),
        dueAtDoor,
        dueByInvoice,
        checkedIn: await repo.checkedInCount(db, projectId),
        orders,
        registrationsOverTime: registrationsByDay(
          await repo.registrationsPerHour(db, projectId),
          project.timezone,
        ),
        checkInDays: checkInsByDay(await repo.checkInsPerQuarter(db, projectId, from, to), project.timezone),
      };
    },
  };
}
