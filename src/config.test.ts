import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConfigError, loadConfig } from "./config.js";

const fastPathsOf = (value: string | undefined) =>
  loadConfig(value === undefined ? {} : { EVENTGRAPH_FAST_PATHS: value }).fastPaths;

// Every switch, named once here as the README names them.
const names = ["hit-lane", "group-commit", "projection", "execution-slots", "jit", "remembered-credentials"];

describe("EVENTGRAPH_FAST_PATHS", () => {
  test("unset (or empty), every fast path is on", () => {
    for (const value of [undefined, ""]) {
      assert.deepEqual(Object.keys(fastPathsOf(value)), names);
      assert.ok(Object.values(fastPathsOf(value)).every((on) => on));
    }
  });

  test("`off` turns every one off, the reserved remembered-credentials included", () => {
    const off = fastPathsOf("off");
    assert.ok(Object.values(off).every((on) => !on));
    assert.equal(off["remembered-credentials"], false);
  });

  test("`-name` turns only the named ones off", () => {
    const some = fastPathsOf("-hit-lane, -group-commit");
    assert.equal(some["hit-lane"], false);
    assert.equal(some["group-commit"], false);
    assert.equal(some.jit, true);
    assert.equal(some.projection, true);
  });

  test("an unknown name, a name without its `-`, or `on` is refused: a typo must not leave a switch on", () => {
    for (const value of ["-hit-lanes", "hit-lane", "on", "-jit,", "off,-jit", "-jit;-projection"]) {
      assert.throws(() => fastPathsOf(value), ConfigError, value);
    }
  });
});

describe("OIDC_* (single sign-on)", () => {
  const full = {
    OIDC_ISSUER: "https://login.example.edu",
    OIDC_CLIENT_ID: "eventgraph",
    OIDC_CLIENT_SECRET: "s3cret",
  };
  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    return [];
  };

  test("unset, single sign-on is off; all three set, it is on with its button's name", () => {
    assert.equal(loadConfig({}).oidc, undefined);
    const on = loadConfig({ ...full, OIDC_NAME: "Uni Login" }).oidc;
    assert.deepEqual(on, {
      ...{ issuer: full.OIDC_ISSUER, clientId: "eventgraph" },
      clientSecret: "s3cret",
      name: "Uni Login",
      only: false,
    });
    assert.equal(loadConfig({ ...full, OIDC_ONLY: "true" }).oidc?.only, true);
  });

  test("a missing piece is named, one line each, never silently half on", () => {
    assert.deepEqual(problemsOf({ OIDC_ISSUER: full.OIDC_ISSUER }), [
      "OIDC_CLIENT_ID: must be set (single sign-on needs all three OIDC variables)",
      "OIDC_CLIENT_SECRET: must be set (single sign-on needs all three OIDC variables)",
    ]);
    assert.equal(problemsOf({ OIDC_CLIENT_SECRET: "x", OIDC_CLIENT_ID: "y" }).length, 1);
    // OIDC_ONLY without a provider would lock everyone out.
    assert.equal(problemsOf({ OIDC_ONLY: "true" }).length, 3);
    assert.match(problemsOf({ OIDC_ONLY: "true" })[0] ?? "", /OIDC_ONLY=true needs single sign-on/);
  });

  test("the issuer is https, or http only on this machine: tokens and the secret travel to it", () => {
    assert.match(
      problemsOf({ ...full, OIDC_ISSUER: "http://login.example.edu" })[0] ?? "",
      /^OIDC_ISSUER: must be an https/,
    );
    assert.match(problemsOf({ ...full, OIDC_ISSUER: "not a url" })[0] ?? "", /^OIDC_ISSUER/);
    for (const issuer of ["http://127.0.0.1:9000", "http://localhost:9000/realms/x", "http://[::1]:9000"])
      assert.equal(loadConfig({ ...full, OIDC_ISSUER: issuer }).oidc?.issuer, issuer);
    assert.match(problemsOf({ ...full, OIDC_ONLY: "yes" })[0] ?? "", /^OIDC_ONLY/);
  });
});

describe("password hashing", () => {
  // The tests' own config lowers it (test/helpers/test-services.ts); a server's never is.
  test("a server hashes new passwords at scrypt's N=16384, and no variable changes that", () => {
    assert.equal(loadConfig({}).passwordCost, 16384);
    assert.equal(loadConfig({ PASSWORD_COST: "1", SCRYPT_N: "1" }).passwordCost, 16384);
  });
});
