import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, test } from "node:test";
import { send } from "./sender.js";
import { BlockedAddressError, checkEndpointUrl, resolvePublicAddress } from "./ssrf.js";

describe("webhook SSRF rules", () => {
  test("refuses non-https, credentials and literal private, loopback, link-local and metadata addresses", () => {
    const refused = [
      "http://example.com/hooks",
      "ftp://example.com/hooks",
      "not a url",
      "https://user:pass@example.com/hooks",
      "https://127.0.0.1/hooks",
      "https://10.1.2.3/hooks",
      "https://172.16.0.1/hooks",
      "https://192.168.1.1/hooks",
      "https://169.254.169.254/latest/meta-data",
      "https://100.64.0.1/hooks",
      "https://0.0.0.0/hooks",
      "https://[::1]/hooks",
      "https://[fe80::1]/hooks",
      "https://[fd00:ec2::254]/hooks",
      "https://[::ffff:127.0.0.1]/hooks",
      "https://localhost/hooks",
      "https://metadata.google.internal/computeMetadata",
    ];
    for (const url of refused) {
      assert.throws(() => checkEndpointUrl(url, false), BlockedAddressError, url);
    }
    // Every way IPv6 writes a private IPv4 address inside it: IPv4-compatible (::/96), mapped,
    // SIIT, NAT64 (well-known and local-use prefixes), 6to4, Teredo, ISATAP.
    for (const url of [
      "https://[::7f00:1]/",
      "https://[::127.0.0.1]/",
      "https://[::a00:1]/",
      "https://[::8.8.8.8]/",
      "https://[::ffff:a00:1]/",
      "https://[::ffff:0:7f00:1]/",
      "https://[64:ff9b::7f00:1]/",
      "https://[64:ff9b:1::a00:1]/",
      "https://[2002:7f00:1::]/",
      "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
      "https://[2a00:1450::5efe:a00:1]/",
      "https://[2a00:1450::200:5efe:c0a8:101]/",
    ]) {
      assert.throws(() => checkEndpointUrl(url, false), BlockedAddressError, url);
    }
    assert.equal(
      checkEndpointUrl("https://[2001:4860:4860::8888]/", false).hostname,
      "[2001:4860:4860::8888]",
    );
    assert.equal(checkEndpointUrl("https://[::ffff:5db8:d822]/", false).hostname, "[::ffff:5db8:d822]");
    assert.equal(checkEndpointUrl("https://hooks.example.com/in", false).hostname, "hooks.example.com");
    assert.equal(checkEndpointUrl("https://93.184.216.34/in", false).hostname, "93.184.216.34");
    // Development: plain http and private addresses once the operator allows them.
    assert.equal(checkEndpointUrl("http://127.0.0.1:8080/in", true).port, "8080");
  });

  test("checks the addresses a name resolves to, so DNS cannot point past the rules", async () => {
    await assert.rejects(
      resolvePublicAddress("localhost", false),
      /resolves to .*private, loopback or link-local/,
    );
    await assert.rejects(resolvePublicAddress("127.0.0.1", false), BlockedAddressError);
    assert.equal((await resolvePublicAddress("localhost", true)).address.length > 0, true);
  });

  test("never follows a redirect and never connects to a refused address", async () => {
    let hits = 0;
    const server = http.createServer((_request, response) => {
      hits++;
      response.writeHead(302, { location: "http://169.254.169.254/latest/meta-data" }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const options = { timeoutMs: 2000, allowPrivateNetworks: true, connections: 4 };
      const redirected = await send(new URL(`http://127.0.0.1:${port}/in`), {}, "{}", options);
      assert.equal(redirected.status, 302, "a redirect is an answer, not followed");
      assert.equal(hits, 1);
      const refused = await send(new URL(`http://localhost:${port}/in`), {}, "{}", {
        ...options,
        allowPrivateNetworks: false,
      });
      assert.equal(refused.status, undefined);
      assert.match(refused.error ?? "", /private, loopback or link-local/);
      assert.equal(hits, 1, "a refused address is never connected to");
    } finally {
      server.close();
    }
  });

  test("reuses a kept-alive connection only after the request's own check answered its address", async () => {
    let connections = 0;
    const server = http.createServer((_request, response) => response.writeHead(204).end());
    server.on("connection", () => connections++);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const options = { timeoutMs: 2000, allowPrivateNetworks: true, connections: 4 };
      const url = new URL(`http://127.0.0.1:${port}/in`);
      assert.equal((await send(url, {}, "{}", options)).status, 204);
      assert.equal((await send(url, {}, "{}", options)).status, 204);
      assert.equal(connections, 1, "the second request went on the first one's connection");
      // The same pooled address, but this request's check refuses it: nothing is sent.
      const refused = await send(url, {}, "{}", { ...options, allowPrivateNetworks: false });
      assert.match(refused.error ?? "", /private, loopback or link-local/);
      assert.equal(connections, 1);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test("gives up on a receiver that does not answer within the timeout", async () => {
    const server = http.createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const outcome = await send(new URL(`http://127.0.0.1:${port}/in`), {}, "{}", {
        timeoutMs: 200,
        allowPrivateNetworks: true,
        connections: 4,
      });
      assert.equal(outcome.status, undefined);
      assert.match(outcome.error ?? "", /No answer within 200 ms/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
