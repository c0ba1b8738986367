// Monaco (GraphiQL's editor) runs its language services in web workers. They are bundled beside the
// explorer and loaded from our own origin, so the explorer works offline and under a strict CSP.
// Imported first: Monaco reads this when the editors are created.
const assets = "/graphql/explorer/assets/";

globalThis.MonacoEnvironment = {
  getWorker(_workerId, label) {
    if (label === "json") return new Worker(`${assets}json.worker.js`);
    if (label === "graphql") return new Worker(`${assets}graphql.worker.js`);
    return new Worker(`${assets}editor.worker.js`);
  },
};
