import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/** Why an endpoint address was refused; the delivery log and the form show the message. */
export class BlockedAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BlockedAddressError";
  }
}

// ipaddr.js names every special-purpose range (RFC 6890); only "unicast" is the public internet.
// Link-local holds the cloud metadata service (169.254.169.254, fd00:ec2::254 is "uniqueLocal").
function isPublic(address: string): boolean {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv4") return parsed.range() === "unicast";
  const v6 = parsed as ipaddr.IPv6;
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0] = v6.parts;
  // ::/96: the unspecified and loopback addresses and the deprecated IPv4-compatible ones
  // (::7f00:1 is 127.0.0.1, which ipaddr.js calls "unicast"). Nothing public lives there.
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0) return false;
  if (v6.isIPv4MappedAddress()) return isPublic(v6.toIPv4Address().toString());
  // Embeddings inside ranges ipaddr.js calls "unicast": the local-use NAT64 prefix 64:ff9b:1::/48
  // (RFC 8215) and ISATAP interface ids (::5efe:a.b.c.d, RFC 5214) carry an IPv4 address in the
  // last 32 bits, which a translator or tunnel router delivers to. 64:ff9b::/96, 6to4 and Teredo
  // are special-purpose ranges and refused whole below.
  const embedded = `${g >> 8}.${g & 0xff}.${h >> 8}.${h & 0xff}`;
  const nat64Local = a === 0x64 && b === 0xff9b && c === 1;
  const isatap = f === 0x5efe && (e & 0xfdff) === 0;
  if ((nat64Local || isatap) && !isPublic(embedded)) return false;
  return v6.range() === "unicast";
}

/**
 * Refuses a URL that is not allowed as an endpoint before any DNS lookup: only https (http too when
 * private networks are allowed, for development), no credentials, and no literal private address.
 */
export function checkEndpointUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BlockedAddressError("must be an absolute URL such as https://example.com/webhooks");
  }
  const schemes = allowPrivate ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(url.protocol)) throw new BlockedAddressError("must start with https://");
  if (url.username || url.password) throw new BlockedAddressError("must not contain a user name or password");
  if (raw.length > 2000) throw new BlockedAddressError("must be at most 2000 characters");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!allowPrivate && isIP(host) && !isPublic(host)) {
    throw new BlockedAddressError("must not point to a private, loopback or link-local address");
  }
  if (!allowPrivate && (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".internal"))) {
    throw new BlockedAddressError("must not point to a private, loopback or link-local address");
  }
  return url;
}

/**
 * Resolves the endpoint's host once and refuses it when any address is not public; the request then
 * connects to exactly that address (passed as `lookup`), so a DNS answer that changes between the
 * check and the connection (rebinding) cannot reach an internal service.
 */
export async function resolvePublicAddress(
  host: string,
  allowPrivate: boolean,
): Promise<{ address: string; family: number }> {
  const bare = host.replace(/^\[|\]$/g, "");
  const addresses = isIP(bare)
    ? [{ address: bare, family: isIP(bare) }]
    : await lookup(bare, { all: true, verbatim: true });
  const first = addresses[0];
  if (!first) throw new BlockedAddressError(`${host} has no address`);
  if (!allowPrivate) {
    const blocked = addresses.find((a) => !isPublic(a.address));
    if (blocked) {
      throw new BlockedAddressError(
        `${host} resolves to ${blocked.address}, a private, loopback or link-local address`,
      );
    }
  }
  return first;
}
