import ipaddr from "ipaddr.js";

/**
 * The key a client address is counted under by per-address limits. An IPv6 client usually holds a
 * whole /64 (SLAAC, privacy addresses): counted per address, it would have 2^64 budgets, so its
 * /64 counts as one address. IPv4 (and IPv4-mapped IPv6) count per address.
 */
export function addressKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const parsed = ipaddr.process(ip);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(":")}::/64`;
}
