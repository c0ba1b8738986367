import { SMTPServer } from "smtp-server";

/** One message the mailbox received: its recipients and its decoded plain text. */
export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
  /** The parts after the text of a multipart message: file name, content type and decoded body. */
  attachments: { filename: string; contentType: string; content: string; bytes: Buffer }[];
}

/** A MIME part's headers and body, its body decoded from quoted-printable or base64. */
function decodePart(part: string): { headers: string; body: string; bytes?: Buffer } {
  const split = part.indexOf("\r\n\r\n");
  const headers = part.slice(0, split);
  const body = part.slice(split + 4);
  if (/Content-Transfer-Encoding: quoted-printable/i.test(headers))
    return { headers, body: decodeQuotedPrintable(body) };
  if (/Content-Transfer-Encoding: base64/i.test(headers)) {
    // The bytes too: a binary attachment (a PDF) is not text.
    const bytes = Buffer.from(body.replace(/\s+/g, ""), "base64");
    return { headers, body: bytes.toString("utf8"), bytes };
  }
  return { headers, body };
}

// A multipart message (text plus attachments): its text/plain part and the others, decoded.
function readMultipart(
  headers: string,
  body: string,
): Pick<ReceivedMail, "text" | "attachments"> | undefined {
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(headers)?.[1];
  if (!/^Content-Type: multipart\//im.test(headers) || !boundary) return undefined;
  const parts = body
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((p) => decodePart(p.replace(/^\r\n/, "")));
  const text = parts.find((p) => /Content-Type: text\/plain/i.test(p.headers))?.body ?? "";
  const attachments = parts
    .filter((p) => /Content-Disposition: attachment/i.test(p.headers))
    .map((p) => ({
      filename: /filename="?([^";\r\n]+)"?/i.exec(p.headers)?.[1] ?? "",
      contentType: /Content-Type: ([^;\r\n]+)/i.exec(p.headers)?.[1] ?? "",
      content: p.body,
      bytes: p.bytes ?? Buffer.from(p.body),
    }));
  return { text, attachments };
}

// Nodemailer sends long plain-text lines as quoted-printable: undo the soft breaks and =XX escapes.
function decodeQuotedPrintable(body: string): string {
  return body
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** A header's value with its RFC 2047 encoded words (=?UTF-8?Q?f=C3=BCr?=, a non-ASCII subject) decoded. */
function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, kind: string, text: string) =>
      kind.toUpperCase() === "B"
        ? Buffer.from(text, "base64").toString("utf8")
        : Buffer.from(decodeQuotedPrintable(text.replaceAll("_", " ")), "latin1").toString("utf8"),
    );
}

/**
 * A real SMTP server on a free loopback port, in process: the code under test mails through its
 * ordinary mailer (`SMTP_URL=mailbox.url`), and the test reads what arrived.
 */
export class Mailbox {
  readonly received: ReceivedMail[] = [];
  private waiters: (() => void)[] = [];
  private readonly server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const split = raw.indexOf("\r\n\r\n");
        const headers = raw.slice(0, split);
        // A long or non-ASCII subject is folded over lines and encoded: unfolded, then decoded.
        const subject = decodeHeader(
          /^Subject: (.*)$/im.exec(headers.replace(/\r\n[ \t]+/g, " "))?.[1] ?? "",
        );
        const quoted = /Content-Transfer-Encoding: quoted-printable/i.test(headers);
        const body = raw.slice(split + 4);
        this.received.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          subject,
          ...(readMultipart(headers, body) ?? {
            text: quoted ? decodeQuotedPrintable(body) : body,
            attachments: [],
          }),
        });
        for (const wake of this.waiters.splice(0)) wake();
        callback();
      });
    },
  });
  url = "";

  /** Starts listening; `url` is then the SMTP_URL to give the server under test. */
  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    const address = this.server.server.address();
    if (!address || typeof address === "string") throw new Error("mailbox has no port");
    this.url = `smtp://127.0.0.1:${address.port}`;
    return this;
  }

  /** Mails received for an address (case-insensitive). */
  to(address: string): ReceivedMail[] {
    return this.received.filter((m) => m.to.some((t) => t.toLowerCase() === address.toLowerCase()));
  }

  /**
   * Waits until a mail to `address` (whose subject matches `subject`, when given: mails sent through
   * the outbox arrive a moment after the request that queued them) arrived and returns the newest
   * one (fails after 20 s).
   */
  async latest(address: string, subject?: RegExp): Promise<ReceivedMail> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const mails = this.to(address).filter((mail) => !subject || subject.test(mail.subject));
      const last = mails[mails.length - 1];
      if (last) return last;
      if (Date.now() > deadline)
        throw new Error(`no mail to ${address}${subject ? ` matching ${subject}` : ""}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  /** The first link to this server in a mail, as a path with its query. */
  static linkIn(mail: ReceivedMail, baseUrl: string): string {
    const match = new RegExp(`${baseUrl.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(/\\S+)`).exec(mail.text);
    if (!match?.[1]) throw new Error(`no link to ${baseUrl} in: ${mail.text}`);
    return match[1];
  }

  /** Stops the server. */
  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
