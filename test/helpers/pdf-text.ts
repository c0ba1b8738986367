import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";

/** The text of every page of a PDF, one line per text run, as a reader's copy-paste would give it. */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  // verbosity 0: the standard fonts are not needed to read text, so pdf.js's warning about them is noise.
  const pdf = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise;
  const pages: string[] = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const content = await (await pdf.getPage(n)).getTextContent();
    pages.push(
      content.items
        .map((item) => ("str" in item ? item.str : ""))
        .filter((text) => text.trim() !== "")
        .join("\n"),
    );
  }
  await pdf.destroy();
  return pages.join("\n");
}
