import { encodeQR } from "@paulmillr/qr";

const quietZone = 4;

/**
 * A QR code of `text` as an SVG document, rendered on the server so pages and emails need no
 * script: black modules on white with the 4-module quiet zone scanners expect, sized by CSS through
 * its viewBox, `title` as its accessible name. Error correction "medium" survives a scuffed printout
 * or a cracked phone screen.
 */
export function qrSvg(text: string, title: string): string {
  const grid = encodeQR(text, "raw", { ecc: "medium", border: 0 });
  const size = grid.length + 2 * quietZone;
  // One path of horizontal runs instead of the library's rectangle per module: ~1 KB, not ~15 KB.
  let path = "";
  grid.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) {
      if (!row[x]) continue;
      const start = x;
      while (row[x + 1]) x++;
      path += `M${start + quietZone} ${y + quietZone}h${x - start + 1}v1h-${x - start + 1}z`;
    }
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" role="img" shape-rendering="crispEdges">` +
    `<title>${escapeXml(title)}</title><rect width="${size}" height="${size}" fill="#fff"/>` +
    `<path fill="#000" d="${path}"/></svg>`
  );
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
