import type { EventContent } from "../modules/event-page/event-content.js";
import { moneyInput } from "../shared/money.js";

/**
 * JSON for an inline `<script type="application/ld+json">`: organizer text may contain
 * `</script>` or `<!--`, which would end the element or change how the HTML parser reads it, so
 * `<`, `>` and `&` are written as JSON escapes (and U+2028/2029, which some parsers treat as line ends).
 */
export function inlineJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** The first `max` characters of a description, on one line, for meta tags and cards. */
export function summary(text: string | null, max = 200): string {
  const line = (text ?? "").replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A search link on OpenStreetMap for the venue (no API key, no script, no tracking). */
export function mapLink(venue: EventContent["project"]["venue"]): string | undefined {
  const query = [venue.name, venue.address, venue.city, venue.country].filter(Boolean).join(", ");
  return query ? `https://www.openstreetmap.org/search?query=${encodeURIComponent(query)}` : undefined;
}

/** schema.org `Event` for search engines: the event, its place, its offers and its speakers. */
export function eventJsonLd(content: EventContent, pageUrl: string): Record<string, unknown> {
  const { project } = content;
  const { venue } = project;
  return {
    "@context": "https://schema.org",
    "@type": "Event",
    name: project.name,
    description: summary(project.description, 5_000) || undefined,
    url: pageUrl,
    startDate: project.startsAt ?? content.sessions[0]?.startsAt,
    endDate: project.endsAt ?? content.sessions.at(-1)?.endsAt,
    eventStatus: "https://schema.org/EventScheduled",
    eventAttendanceMode: "https://schema.org/OfflineEventAttendanceMode",
    location:
      venue.name || venue.address || venue.city
        ? {
            "@type": "Place",
            name: venue.name ?? venue.city ?? undefined,
            address: {
              "@type": "PostalAddress",
              streetAddress: venue.address ?? undefined,
              addressLocality: venue.city ?? undefined,
              addressCountry: venue.country ?? undefined,
            },
          }
        : undefined,
    offers: content.tickets.map((t) => ({
      "@type": "Offer",
      name: t.name,
      price: moneyInput(t.priceMinor, t.currency),
      priceCurrency: t.currency,
      availability: t.remaining > 0 ? "https://schema.org/InStock" : "https://schema.org/SoldOut",
      validFrom: t.salesStartAt ?? undefined,
      url: pageUrl,
    })),
    performer: content.speakers.slice(0, 50).map((s) => ({ "@type": "Person", name: s.name })),
  };
}
