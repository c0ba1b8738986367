import type { FastifyInstance, FastifyReply } from "fastify";
import { type EventLanguages, projectSubject } from "../../modules/event-page/event-languages.js";
import type { TicketType } from "../../modules/tickets/tickets.service.js";
import { type Language, languageNames, languages } from "../../shared/i18n/languages.js";
import { pageContext } from "../context.js";
import { formList } from "../form-data.js";
import { type FormRequest, formRoute, pageRoute } from "../form-route.js";
import {
  CheckboxGroup,
  Form,
  FormError,
  type FormState,
  formState,
  SelectField,
  SubmitButton,
  TextAreaField,
  TextField,
} from "../ui/forms.js";
import { listWindow, type ProjectPageData } from "./project-page.js";
import { SettingsPage } from "./settings.js";

/** The address of the languages page of a project. */
const languagesPath = (projectId: string) => `/b/${projectId}/settings/languages`;

/** A translation's form input name: the service's error path joined with dots, so errors land beside it. */
const inputName = (language: string, subject: string, field: string) =>
  `translations.${language}.${subject}.${field}`;
const inputPattern = /^translations\.([a-z]{2})\.([^.]+)\.(name|description)$/;

/** The form's values from what is stored: the languages and each translation under its input name. */
function storedValues(stored: EventLanguages): Record<string, string> {
  const values: Record<string, string> = { firstLanguage: stored.languages[0] ?? "en" };
  for (const row of stored.translations) values[inputName(row.language, row.subject, row.field)] = row.text;
  return values;
}

function LanguagesPage(props: {
  ctx: ReturnType<typeof pageContext>;
  data: ProjectPageData;
  languages: readonly Language[];
  ticketTypes: readonly TicketType[];
  state: FormState;
}) {
  const { project } = props.data;
  const { state } = props;
  const first = props.languages[0] ?? "en";
  const others = props.languages.slice(1);
  const options = languages.map((value) => ({ value, label: languageNames[value] }));
  const original = (text: string | null) =>
    text ? `In ${languageNames[first]}: ${text.slice(0, 120)}` : undefined;
  return (
    <SettingsPage ctx={props.ctx} project={project} tab="general">
      <section class="panel" aria-labelledby="languages-heading">
        <h3 id="languages-heading">Languages of the event page</h3>
        <p>
          The event page and the emails to attendees are shown in the visitor's language when the event offers
          it, else in the event's own. Texts you leave untranslated appear in the event's own language.
        </p>
        <Form action={languagesPath(project.id)} csrf={props.ctx.csrf} label="Languages of the event page">
          <FormError state={state} />
          <SelectField
            name="firstLanguage"
            label="The event's texts are written in"
            state={state}
            required
            options={options}
          />
          <CheckboxGroup
            name="languages"
            label="Also offer the page in"
            state={state}
            options={options.filter((o) => o.value !== first)}
            checked={others}
            hint="Save to get the fields for a language you add."
          />
          {others.map((language) => (
            <fieldset class="fieldset" lang={language}>
              <legend>{`Texts in ${languageNames[language]}`}</legend>
              <TextField
                name={inputName(language, projectSubject, "name")}
                label="Event name"
                state={state}
                hint={original(project.name)}
              />
              <TextAreaField
                name={inputName(language, projectSubject, "description")}
                label="Description"
                state={state}
                rows={4}
                hint={original(project.description)}
              />
              {props.ticketTypes.map((ticket) => (
                <TextField
                  name={inputName(language, ticket.id, "name")}
                  label={`Ticket “${ticket.name}”`}
                  state={state}
                  hint={original(ticket.name)}
                />
              ))}
            </fieldset>
          ))}
          <div class="form-actions">
            <SubmitButton>Save languages</SubmitButton>
          </div>
        </Form>
      </section>
    </SettingsPage>
  );
}

/** Settings › General › Languages: the event's languages and the organizer's translations of its texts. */
export function registerEventLanguagePages(app: FastifyInstance): void {
  const { services } = app;

  async function page(request: FormRequest, reply: FastifyReply, data: ProjectPageData, state?: FormState) {
    const [stored, ticketTypes] = await Promise.all([
      services.eventLanguages.read(data.actor, data.project.id),
      services.tickets.listTicketTypes(data.access, { onSaleOnly: false }, listWindow()),
    ]);
    return (
      <LanguagesPage
        ctx={pageContext(request, reply)}
        data={data}
        languages={stored.languages}
        ticketTypes={ticketTypes.items}
        state={state ?? formState(storedValues(stored))}
      />
    );
  }

  pageRoute(app, languagesPath(":projectId"), page);

  formRoute(app, languagesPath(":projectId"), {
    async submit({ request, data, values }) {
      const first = values.firstLanguage ?? "";
      const chosen = [first, ...formList(request.body, "languages").filter((l) => l !== first)];
      const translations = Object.entries(values).flatMap(([name, text]) => {
        const match = inputPattern.exec(name);
        return match
          ? [{ language: match[1] ?? "", subject: match[2] ?? "", field: match[3] ?? "", text }]
          : [];
      });
      const saved = await services.eventLanguages.update(data.actor, data.project.id, {
        languages: chosen as Language[],
        translations: translations as { language: Language; subject: string; field: string; text: string }[],
      });
      const names = saved.languages.map((l) => languageNames[l]).join(", ");
      return {
        to: languagesPath(data.project.id),
        flash: { kind: "success", text: `Languages saved: ${names}.` },
      };
    },
    invalid: ({ request, reply, data }, state) => page(request, reply, data, state),
  });
}
