// CRC-32/ISO-HDLC (IEEE 802.3, the zlib and gzip polynomial): gzip's trailer and the API tokens'
// checksum. zlib.crc32 only exists from Node 20.15, and the service supports 20.12, so the
// 256-entry table is built here once.
const table = (() => {
  const entries = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    entries[n] = c;
  }
  return entries;
})();

/**
 * CRC-32 of `data` (text is read as UTF-8), continuing from `previous` (0 to start), as an
 * unsigned 32-bit integer.
 */
export function crc32(data: Uint8Array | string, previous = 0): number {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  let c = ~previous;
  // An indexed loop: a Buffer's iterator costs more than the checksum itself (every API request).
  for (let i = 0; i < bytes.length; i++) c = (table[(c ^ (bytes[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return ~c >>> 0;
}
