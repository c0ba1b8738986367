import assert from "node:assert/strict";
import { test } from "node:test";
import * as oauth from "oauth4webapi";
import { describeInBrowser, widths } from "../helpers/browser.js";
import { createApp } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { authorizationRequest, callback, discover, insecure } from "../helpers/oauth-install.js";
import { createOrganizer } from "../helpers/organizer.js";

describeInBrowser("an OAuth install in Chromium at 390 px and 1280 px", {}, (fx) => {
  for (const width of widths) {
    test(`registers a client, consents, and shows the grant's last use to both sides at ${width} px`, async () => {
      const services = fx.server.services;
      const developer = await createOrganizer(services, { name: "Dana Developer" });
      const { app } = await createApp(services, {
        projectId: developer.project.id,
        ownerId: developer.user.id,
        name: "Badge Printer",
        permissions: ["agenda:read", "attendees:read"],
      });
      const dev = await fx.page(width, developer.user);
      const appPage = `${fx.server.url}/b/${developer.project.id}/settings/api/apps/${app.id}`;
      await dev.goto(appPage);
      await dev.getByRole("tab", { name: "OAuth" }).click();
      await dev.getByRole("heading", { name: "Redirect URIs" }).waitFor();
      await dev.getByRole("textbox", { name: "Redirect URIs" }).fill("ftp://nope.example.test/");
      await dev.getByRole("button", { name: "Save and create client secret" }).click();
      await dev.getByText("must be an https:// URL").first().waitFor();
      await dev.getByRole("textbox", { name: "Redirect URIs" }).fill(callback);
      await dev.getByRole("button", { name: "Save and create client secret" }).click();
      const secret = await dev.getByRole("textbox", { name: "Client secret" }).inputValue();
      assert.match(secret, /^evs_/);
      await dev.getByRole("button", { name: "OK" }).click();
      assert.equal(
        await dev.getByRole("textbox", { name: "Client secret" }).count(),
        0,
        "the secret is shown once",
      );
      assert.equal(await dev.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), 0);

      // The organizer's browser follows the app's authorization request and authorizes.
      const organizer = await createOrganizer(services, { name: "Olga Organizer" });
      const as = await discover(fx.server.url);
      const { verifier, state, params } = await authorizationRequest(app.id, { scope: "agenda:read" });
      const org = await fx.page(width, organizer.user);
      let arrived: URL | undefined;
      await org.route(`${new URL(callback).origin}/**`, async (route) => {
        arrived = new URL(route.request().url());
        await route.fulfill({ status: 200, contentType: "text/plain", body: "installed" });
      });
      await org.goto(`${fx.server.url}/oauth/authorize?${new URLSearchParams(params)}`);
      await org.getByRole("heading", { name: "Badge Printer" }).waitFor();
      await org.getByText("limited to").waitFor();
      assert.equal(await org.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), 0);
      await org.getByLabel("Project").selectOption(organizer.project.id);
      await org.getByRole("button", { name: "Authorize" }).click();
      await org.getByText("installed").waitFor();
      assert.ok(arrived);
      const client = { client_id: app.id };
      const answer = oauth.validateAuthResponse(as, client, arrived, state);
      const tokens = await oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(
          as,
          client,
          oauth.ClientSecretPost(secret),
          answer,
          callback,
          verifier,
          insecure,
        ),
      );
      const read = await gql(fx.server.url, "query ($id: ID!) { project(id: $id) { name } }", {
        token: tokens.access_token,
        variables: { id: organizer.project.id },
      });
      assert.equal(read.status, 200);
      await services.oauth.flushUse();

      await org.goto(`${fx.server.url}/b/${organizer.project.id}/settings/integrations`);
      const grants = org.getByRole("table", { name: "OAuth grants" });
      await grants.waitFor();
      assert.match(await grants.innerText(), /Badge Printer[\s\S]*Read the agenda[\s\S]*active/i);
      assert.doesNotMatch(await grants.innerText(), /Never\s+active/i, "its last use is shown");
      assert.equal(await org.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), 0);

      await dev.goto(`${appPage}/linked-projects`);
      const mine = dev.getByRole("table", { name: "OAuth grants" });
      await mine.waitFor();
      assert.match(await mine.innerText(), new RegExp(organizer.project.id));
      assert.equal(await dev.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), 0);
    });
  }
});
