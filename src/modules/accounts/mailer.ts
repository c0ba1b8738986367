import nodemailer from "nodemailer";
import type { Config } from "../../config.js";
import type { Logger } from "../../logger.js";

/** A file sent with an email (e.g. a ticket's QR code as SVG). */
interface Attachment {
  filename: string;
  contentType: string;
  content: string;
}

/** One plain-text email. */
interface Email {
  to: string;
  subject: string;
  text: string;
  /** The action link in the email; written to the log when no SMTP server is configured. */
  link?: string;
  attachments?: Attachment[];
}

/** Sends account emails: over SMTP when SMTP_URL is set, otherwise to the server log. */
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
      // Without SMTP the operator (or a developer on their laptop) copies the link from the log.
      async send(email) {
        logger.info(
          { emailTo: email.to, subject: email.subject, link: email.link },
          "Email not sent (no SMTP_URL): open the link",
        );
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
