import PDFDocument from "pdfkit";
import { formatMoney } from "../../shared/money.js";
import type { InvoiceDocument } from "./invoice-document.js";
import { formatTaxRate } from "./taxes.js";

// pdfkit's built-in fonts (no font file to ship or download) encode text as Windows-1252, which
// covers the Latin scripts of Western and most of Central Europe. A character outside it would print
// as something else, so it prints as "?" instead; embedding a Unicode font is the step beyond.
const winAnsiExtras = new Set("€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ");
function printable(text: string): string {
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const ok = char === "\n" || (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff);
    out += ok || winAnsiExtras.has(char) ? char : "?";
  }
  return out;
}

const dateOf = (iso: string) => iso.slice(0, 10);

/**
 * Draws an issued invoice or credit note as an A4 PDF. Everything comes from the frozen document,
 * and the PDF's dates are the issue date, so the same document always gives the same file.
 */
export function invoicePdf(doc: InvoiceDocument): Promise<Buffer> {
  const issued = new Date(doc.issuedAt);
  const title = doc.kind === "INVOICE" ? "Invoice" : "Credit note";
  const pdf = new PDFDocument({
    size: "A4",
    margin: 50,
    info: { Title: `${title} ${doc.number}`, CreationDate: issued, ModDate: issued },
  });
  const chunks: Buffer[] = [];
  pdf.on("data", (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on("end", () => resolve(Buffer.concat(chunks)));
    pdf.on("error", reject);
  });
  const money = (minor: number) => printable(formatMoney(minor, doc.currency));
  const left = 50;
  const width = 495;

  pdf.font("Helvetica").fontSize(9).text(printable(doc.seller), left, 50, { width: 250 });
  pdf
    .font("Helvetica-Bold")
    .fontSize(16)
    .text(`${title} ${doc.number}`, 300, 50, { width: 245, align: "right" });
  pdf
    .font("Helvetica")
    .fontSize(10)
    .text(`Date: ${dateOf(doc.issuedAt)}`, 300, pdf.y + 4, { width: 245, align: "right" })
    .text(`Order: ${doc.orderCode}`, { width: 245, align: "right" })
    .text(`Payment: ${printable(doc.payment)}`, { width: 245, align: "right" });
  if (doc.correctsNumber) pdf.text(`Corrects invoice ${doc.correctsNumber}`, { width: 245, align: "right" });

  const buyer = [
    doc.buyer.company,
    doc.buyer.name,
    doc.buyer.address,
    doc.buyer.email,
    doc.buyer.vatId ? `VAT id: ${doc.buyer.vatId}` : null,
  ].filter((line): line is string => Boolean(line));
  pdf.font("Helvetica-Bold").text("Billed to", left, 170);
  pdf.font("Helvetica").text(printable(buyer.join("\n")), left, pdf.y, { width: 250 });

  // The table: description, quantity, unit price, tax rate, net, tax, gross.
  const columns = [
    { label: "Description", x: left, w: 165, align: "left" as const },
    { label: "Qty", x: 215, w: 35, align: "right" as const },
    // Prices entered net print the net unit price, as the organizer set it.
    {
      label: doc.lines.some((l) => l.pricesNet) ? "Unit net" : "Unit price",
      x: 250,
      w: 65,
      align: "right" as const,
    },
    { label: "Tax", x: 315, w: 40, align: "right" as const },
    { label: "Net", x: 355, w: 60, align: "right" as const },
    { label: "Tax amount", x: 415, w: 60, align: "right" as const },
    { label: "Gross", x: 475, w: 70, align: "right" as const },
  ];
  const row = (cells: string[], y: number) => {
    cells.forEach((cell, i) => {
      const c = columns[i];
      if (c) pdf.text(cell, c.x, y, { width: c.w, align: c.align, lineBreak: i === 0 });
    });
    return Math.max(pdf.y, y + 14);
  };
  let y = Math.max(pdf.y + 24, 260);
  pdf.font("Helvetica-Bold").fontSize(9);
  y = row(
    columns.map((c) => c.label),
    y,
  );
  pdf
    .moveTo(left, y)
    .lineTo(left + width, y)
    .stroke();
  pdf.font("Helvetica");
  for (const line of doc.lines) {
    if (y > 720) {
      pdf.addPage();
      y = 50;
    }
    y = row(
      [
        printable(line.description),
        // An amount taken back (a partial refund's credit) has no tickets and no unit price.
        line.quantity === 0 ? "" : String(line.quantity),
        line.quantity === 0
          ? ""
          : money(line.pricesNet ? line.netMinor / line.quantity : line.unitPriceMinor),
        formatTaxRate(line.taxRateBasisPoints),
        money(line.netMinor),
        money(line.taxMinor),
        money(line.grossMinor),
      ],
      y + 4,
    );
  }
  pdf
    .moveTo(left, y + 4)
    .lineTo(left + width, y + 4)
    .stroke();

  y += 12;
  const total = (label: string, amount: string, bold = false) => {
    pdf.font(bold ? "Helvetica-Bold" : "Helvetica").fontSize(bold ? 11 : 9);
    pdf.text(label, 300, y, { width: 170, align: "right" });
    pdf.text(amount, 475, y, { width: 70, align: "right" });
    y += bold ? 16 : 13;
  };
  total("Net total", money(doc.netMinor));
  for (const tax of doc.taxes) {
    total(`Tax ${formatTaxRate(tax.rateBasisPoints)} on ${money(tax.netMinor)}`, money(tax.taxMinor));
  }
  total(doc.kind === "INVOICE" ? "Total" : "Total credited", money(doc.grossMinor), true);
  pdf.end();
  return done;
}
