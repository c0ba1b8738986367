import nodemailer from "nodemailer";
import type { Config } from "../../config.js";
import type { Logger } from "../../logger.js";

/** A file sent with an email (e.g. a ticket's QR code as SVG, an invoice as PDF). */
interface Attachment {
  filename: string;
  contentType: string;
  content: string | Buffer;
}

/** One plain-text email. */
export interface Email {
  to: string;
  subject: string;
  text: string;
  /** The action link in the email; logged only by a development server without SMTP (`mailLinksInLog`). */
  link?: string;
  attachments?: Attachment[];
}

/**
 * Sends emails over SMTP when SMTP_URL is set. Without it nothing is sent: a development server
 * (BASE_URL unset) writes the link to the log so one can click through on a laptop; any other
 * server logs only that an email was not sent, since its links are secrets (a manage link cancels a
 * registration) and logs travel to places secrets must not.
 */
export interface Mailer {
  /** False without SMTP_URL: `send` only logs, and screens must not say an email went out. */
  readonly delivers: boolean;
  send(email: Email): Promise<void>;
}

/** Builds the mailer the configuration asks for. */
export function createMailer(config: Config, logger: Logger): Mailer {
  if (!config.smtpUrl) {
    return {
      delivers: false,
      async send(email) {
        if (config.mailLinksInLog && email.link) {
          logger.info(
            { emailTo: email.to, subject: email.subject, link: email.link },
            "Email not sent (no SMTP_URL): open the link (logged because BASE_URL is unset: development)",
          );
          return;
        }
        logger.warn({ emailTo: email.to, subject: email.subject }, "Email not sent: no SMTP_URL is set");
      },
    };
  }
  const transport = nodemailer.createTransport(config.smtpUrl);
  return {
    delivers: true,
    async send(email) {
      await transport.sendMail({
        from: config.mailFrom,
        to: email.to,
        subject: email.subject,
        text: email.text,
        attachments: email.attachments,
      });
      logger.info({ emailTo: email.to, subject: email.subject }, "Email sent");
    },
  };
}
